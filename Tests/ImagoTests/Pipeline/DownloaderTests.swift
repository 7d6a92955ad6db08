import Foundation
import Testing

@testable import Imago

/// What one download attempt's response yields, and how an attempt resumes: the ``Downloader``'s
/// decisions, without a server or a clock.
@Suite("Downloader decisions")
struct DownloaderTests {
    static let url = URL(string: "http://127.0.0.1/a.jpg")!
    static let whole = Data((0..<100).map { UInt8($0) })
    static let kept = ResumableData(data: whole.prefix(40), totalLength: 100, etag: "\"v1\"", lastModified: nil)
    static let staleValidators = HTTPCacheHeaders(metadata: HTTPCacheHeaders(responseHeaders: ["etag": "\"v0\""]).metadata)

    static func machine(stale: Bool = false, retrying attempts: Int = 3) -> DownloadStateMachine {
        DownloadStateMachine(
            url: url, retryPolicy: RetryPolicy(maximumAttempts: attempts), honoursHTTPCacheHeaders: true,
            servesExpiredEntries: false, staleValidators: stale ? staleValidators : nil)
    }

    static func resumption(_ partial: ResumableData? = nil) -> ResumptionStateMachine {
        ResumptionStateMachine(url: url, requestHeaders: [:], partial: partial)
    }

    static func verdict(
        _ status: Int, _ headers: [String: String] = [:], body: Data = whole, partial: ResumableData? = nil,
        stale: Bool = false
    ) -> Downloader.Verdict {
        Downloader.verdict(
            statusCode: status, headers: headers, body: body, resumption: resumption(partial), machine: machine(stale: stale))
    }

    @Test("A whole 200 is accepted with the storage its caching headers allow")
    func acceptsWhole() {
        let storage = DiskStorage(headers: HTTPCacheHeaders(responseHeaders: ["cache-control": "max-age=60"]), honoursHTTPCacheHeaders: true)
        #expect(Self.verdict(200, ["cache-control": "max-age=60"]) == .accept(body: Self.whole, storage: storage, resumedByteCount: 0))
        // A 200 when bytes were kept: the server ignored the range; the body is whole by itself.
        #expect(
            Self.verdict(200, partial: Self.kept) == .accept(body: Self.whole, storage: .unrestricted, resumedByteCount: 0))
    }

    @Test("A 206 that continues the kept bytes is accepted whole, the kept bytes counted as resumed")
    func acceptsResumed() {
        let headers = ["content-range": "bytes 40-99/100", "etag": "\"v1\"", "content-length": "60"]
        let verdict = Self.verdict(206, headers, body: Data(Self.whole.dropFirst(40)), partial: Self.kept)
        guard case .accept(let body, _, let resumedByteCount) = verdict else {
            Issue.record("not accepted: \(verdict)")
            return
        }
        #expect(body == Self.whole)
        #expect(resumedByteCount == 40)
    }

    @Test("A 206 that cannot be joined restarts from zero, before its status is judged")
    func restartsInconsistent() {
        let headers = ["content-range": "bytes 40-99/100", "etag": "\"v2\"", "content-length": "60"]
        let verdict = Self.verdict(206, headers, body: Data(Self.whole.dropFirst(40)), partial: Self.kept)
        guard case .restart = verdict else {
            Issue.record("not restarted: \(verdict)")
            return
        }
    }

    @Test("A 304 refreshes the stale copy; a 304 with no copy fails")
    func notModified() {
        guard case .refreshStale = Self.verdict(304, ["cache-control": "max-age=60"], body: Data(), stale: true) else {
            Issue.record("304 did not refresh the stale copy")
            return
        }
        #expect(Self.verdict(304, body: Data()) == .fail(.httpStatus(Self.url, statusCode: 304)))
    }

    @Test("A taken-over download resumes as it began; otherwise the store is asked, and only when resuming is allowed")
    func resumptionChoice() throws {
        var asked = 0
        // No kept download: the partial bytes from the store are resumed.
        let fresh = Downloader.resumption(kept: nil, url: Self.url, requestHeaders: [:]) {
            asked += 1
            return Self.kept
        }
        #expect(fresh.partial == Self.kept && asked == 1)
        // The request's own Range: nothing is resumed.
        let ranged = Downloader.resumption(kept: nil, url: Self.url, requestHeaders: ["Range": "bytes=0-9"]) { Self.kept }
        #expect(ranged.partial == nil && !ranged.isResumable)
        // A kept download: its own resumption, and the store is not asked (it would hand out bytes twice).
        let kept = KeptDownload(download: NeverEndingDownload(), resumption: Self.resumption(Self.kept))
        let takenOver = Downloader.resumption(kept: kept, url: Self.url, requestHeaders: [:]) {
            asked += 1
            return nil
        }
        #expect(takenOver.partial == Self.kept && asked == 1)
    }

    @Test("After a failed attempt: retried while the policy allows, then the failure, counted")
    func retryDecision() {
        var machine = Self.machine(retrying: 2)
        var generator = SystemRandomNumberGenerator()
        let error = ImagePipeline.Error.httpStatus(Self.url, statusCode: 503)
        machine.startAttempt()
        guard case .retry = machine.failure(error, taskCancelled: false, using: &generator) else {
            Issue.record("the first 503 was not retried")
            return
        }
        machine.startAttempt()
        #expect(machine.failure(error, taskCancelled: false, using: &generator) == .fail(.gaveUp(last: error, attempts: 2)))
        #expect(machine.failure(error, taskCancelled: true, using: &generator) == .fail(.cancelled(Self.url)))
    }
}

/// A download that is never waited for here.
private final class NeverEndingDownload: StartedDownload {
    func response(cancelling: Bool) async throws(ImagePipeline.Error) -> DataLoader.Response {
        throw .cancelled(URL(string: "http://127.0.0.1/")!)
    }
    func cancel() {}
}
