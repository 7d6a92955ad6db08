import Foundation
import Imago
import ImagoTestSupport
import Testing

/// What a resumed download refuses to join, against the loopback server, through each loader: a
/// file of the same length changed between the cut and the resume is never spliced into one body
/// (RFC 9110 §13.1.5: only a strong validator, carried back by the `206`), and a `206` nobody
/// asked for is an error, never a whole body.
@Suite("Resumption refusals")
struct ResumptionRefusalTests {
    static let path = ResumedDownloadTests.path
    static let date = "Wed, 21 Oct 2015 07:28:00 GMT"
    static let laterDate = "Thu, 22 Oct 2015 07:28:00 GMT"

    /// `data` changed in two bytes, one in the half a cut keeps and one in the half a resume asks
    /// for: the same length, so only validators tell the two apart, and a splice of the kept half
    /// of `data` with the rest of this one equals neither.
    static func changed(_ data: Data) -> Data {
        var changed = data
        changed[data.count / 4] ^= 0xFF
        changed[data.count - 10] ^= 0xFF
        return changed
    }

    /// Loads `data` cut in half (keeping what the rules allow), then serves `changed` with
    /// `etag`/`lastModified`/`headers` as `behavior` says, and loads again; returns the bytes loaded
    /// and the requests the second load made.
    static func resumeAfterAChange(
        _ fixture: PipelineFixture, _ kind: LoaderKind, data: Data, first: (etag: String?, lastModified: String?, headers: [String: String]),
        then second: (etag: String?, lastModified: String?), behavior: TestServer.Behavior
    ) async throws -> (loaded: Data, requests: [TestServer.RecordedRequest], kept: Int) {
        fixture.server.set(
            path, data: data, contentType: "image/jpeg", headers: first.headers, etag: first.etag, lastModified: first.lastModified,
            acceptsRanges: true)
        let pipeline = try ResumedDownloadTests.pipeline(fixture, kind)
        let kept = try await ResumedDownloadTests.cutInHalf(fixture, pipeline, size: data.count)
        let changed = Self.changed(data)
        fixture.server.set(
            path, data: changed, contentType: "image/jpeg", headers: first.headers, etag: second.etag, lastModified: second.lastModified,
            acceptsRanges: true)
        fixture.server.setBehavior(path, behavior)
        let loaded = try await pipeline.data(for: ImageRequest(url: fixture.server.url(for: path)))
        return (loaded.data, fixture.server.requests(for: path), kept)
    }

    @Test(arguments: LoaderKind.allCases)
    func aChangedFileWhose206CarriesNoETagIsNotSpliced(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try ResumedDownloadTests.photo()
            let (loaded, requests, kept) = try await Self.resumeAfterAChange(
                fixture, kind, data: data, first: ("\"v1\"", nil, [:]), then: ("\"v2\"", nil),
                behavior: .sequence([.ignoresIfRangeWithoutValidators]))
            #expect(kept > 0)
            try #require(requests.count == 2)
            #expect(requests[0].header("if-range") == "\"v1\"")
            #expect(requests[1].header("range") == nil, "the 206 without its ETag was refused, and the file loaded again whole")
            #expect(loaded == Self.changed(data))
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aChangedFileWithoutETagIsNotSpliced(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try ResumedDownloadTests.photo()
            // A server that ignores If-Range sends the new date with the changed bytes.
            let (loaded, requests, kept) = try await Self.resumeAfterAChange(
                fixture, kind, data: data, first: (nil, Self.date, [:]), then: (nil, Self.laterDate),
                behavior: .sequence([.ignoresIfRange]))
            #expect(kept > 0)
            try #require(requests.count == 2)
            #expect(requests[0].header("if-range") == Self.date)
            #expect(requests[1].header("range") == nil)
            #expect(loaded == Self.changed(data))
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aChangedFileWithoutAnyValidatorOnIts206IsNotSpliced(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try ResumedDownloadTests.photo()
            let (loaded, requests, kept) = try await Self.resumeAfterAChange(
                fixture, kind, data: data, first: (nil, Self.date, [:]), then: (nil, Self.laterDate),
                behavior: .sequence([.ignoresIfRangeWithoutValidators]))
            #expect(kept > 0)
            try #require(requests.count == 2)
            #expect(requests[1].header("range") == nil)
            #expect(loaded == Self.changed(data))
        }
    }

    /// `Last-Modified` equal to `Date`: the file may change again within that second and keep its
    /// date, so the date is weak and nothing is kept to resume. The changed file keeps the same
    /// date and length: had the first half been kept, a server honouring `If-Range` would have
    /// joined it to the new rest.
    @Test(arguments: LoaderKind.allCases)
    func aWeakLastModifiedKeepsNothing(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try ResumedDownloadTests.photo()
            let (loaded, requests, kept) = try await Self.resumeAfterAChange(
                fixture, kind, data: data, first: (nil, Self.date, ["Date": Self.date]), then: (nil, Self.date),
                behavior: .normal)
            #expect(kept == 0)
            try #require(requests.count == 1)
            #expect(requests[0].header("range") == nil && requests[0].header("if-range") == nil)
            #expect(loaded == Self.changed(data))
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aStrongLastModifiedResumes(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try ResumedDownloadTests.photo()
            fixture.server.set(
                Self.path, data: data, contentType: "image/jpeg", headers: ["Date": "Wed, 21 Oct 2015 07:28:01 GMT"],
                lastModified: Self.date, acceptsRanges: true)
            let pipeline = try ResumedDownloadTests.pipeline(fixture, kind)
            let kept = try await ResumedDownloadTests.cutInHalf(fixture, pipeline, size: data.count)
            #expect(kept > 0, "one second between Last-Modified and Date is enough")
            let loaded = try await pipeline.data(for: ImageRequest(url: fixture.server.url(for: Self.path)))
            #expect(fixture.server.requests(for: Self.path).first?.header("if-range") == Self.date)
            #expect(fixture.server.bodyBytesSent(for: Self.path) == data.count - kept)
            #expect(loaded.data == data)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func anUnrequested206IsAnError(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try ResumedDownloadTests.photo()
            let part = data.prefix(data.count / 2)
            let url = fixture.server.url(for: Self.path)
            let headers = ["Content-Type": "image/jpeg", "Content-Range": "bytes 0-\(part.count - 1)/\(data.count)", "ETag": "\"v1\""]
            fixture.server.setBehavior(Self.path, .status(206, body: part, headers: headers))
            let pipeline = try ResumedDownloadTests.pipeline(fixture, kind, retry: RetryPolicy(maximumAttempts: 3, baseDelay: .zero))
            await #expect(throws: ImagePipeline.Error.httpStatus(url, statusCode: 206)) {
                try await pipeline.data(for: ImageRequest(url: url))
            }
            #expect(fixture.server.requestCount(for: Self.path) == 1, "not retried: the server would send it again")
            #expect(fixture.server.requests(for: Self.path).first?.header("range") == nil)
            await pipeline.waitForDiskWrites()
            #expect(await pipeline.cachedOriginal(for: ImageRequest(url: url)) == nil, "the part is not stored as the image")
        }
    }
}
