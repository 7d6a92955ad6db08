import Foundation
@testable import Imago
import ImagoTestSupport
import Testing

/// The download's retry, revalidation and serve-stale rules, without a server or a clock.
@Suite("Download state machine")
struct DownloadStateMachineTests {
    static let url = URL(string: "http://127.0.0.1/a.jpg")!
    static let staleWithETag = HTTPCacheHeaders(metadata: HTTPCacheHeaders(responseHeaders: ["etag": "\"v1\""]).metadata)

    func machine(
        attempts: Int = 3, stale: HTTPCacheHeaders? = nil, servesExpired: Bool = false, honoursHeaders: Bool = true
    ) -> DownloadStateMachine {
        DownloadStateMachine(
            url: Self.url, retryPolicy: RetryPolicy(maximumAttempts: attempts),
            honoursHTTPCacheHeaders: honoursHeaders, servesExpiredEntries: servesExpired, staleValidators: stale)
    }

    @Test("A stale copy with an ETag is revalidated; the caller's own header wins")
    func conditionalHeaders() {
        let revalidating = machine(stale: Self.staleWithETag)
        #expect(revalidating.headers(adding: ["Accept": "image/*"])["If-None-Match"] == "\"v1\"")
        #expect(revalidating.headers(adding: ["If-None-Match": "\"mine\""])["If-None-Match"] == "\"mine\"")
        #expect(machine(stale: Self.staleWithETag, honoursHeaders: false).headers(adding: [:]).isEmpty)
        #expect(machine().headers(adding: ["A": "b"]) == ["A": "b"])
    }

    @Test("200 is accepted with the lifetime its headers give, unless HTTP caching is ignored")
    func accepts() {
        let headers = ["cache-control": "max-age=60"]
        guard case .accept(let storage) = machine().response(statusCode: 200, headers: headers) else {
            Issue.record("200 not accepted")
            return
        }
        #expect(storage.lifetime == .seconds(60))
        guard case .accept(let ignored) = machine(honoursHeaders: false).response(statusCode: 200, headers: headers)
        else {
            Issue.record("200 not accepted")
            return
        }
        #expect(ignored == .unrestricted)
    }

    @Test("no-store forbids keeping the bytes on disk when HTTP caching is honoured, and only then")
    func noStore() {
        let headers = ["cache-control": "no-store", "etag": "\"v2\""]
        guard case .accept(let honoured) = machine().response(statusCode: 200, headers: headers),
            case .accept(let ignored) = machine(honoursHeaders: false).response(statusCode: 200, headers: headers)
        else {
            Issue.record("200 not accepted")
            return
        }
        #expect(honoured.isForbidden)
        #expect(HTTPCacheHeaders(metadata: honoured.metadata).etag == "\"v2\"")
        #expect(ignored == .unrestricted)
        #expect(!ignored.isForbidden)
    }

    @Test("304 refreshes the stale copy; 304 with no copy fails")
    func notModified() {
        guard
            case .refreshStale(let storage) = machine(stale: Self.staleWithETag)
                .response(statusCode: 304, headers: ["cache-control": "max-age=30"])
        else {
            Issue.record("304 did not refresh the stale copy")
            return
        }
        #expect(storage.lifetime == .seconds(30))
        #expect(machine().response(statusCode: 304, headers: [:]) == .fail(.httpStatus(Self.url, statusCode: 304)))
    }

    @Test("Transient failures are retried until the attempts run out, then the error says how many")
    func retriesThenGivesUp() {
        var machine = machine(attempts: 3)
        var generator = SplitMix(seed: 7)
        let error = ImagePipeline.Error.httpStatus(Self.url, statusCode: 503)
        for _ in 1...2 {
            machine.startAttempt()
            guard case .retry = machine.failure(error, taskCancelled: false, using: &generator) else {
                Issue.record("attempt \(machine.attempts) was not retried")
                return
            }
        }
        machine.startAttempt()
        #expect(
            machine.failure(error, taskCancelled: false, using: &generator)
                == .fail(.gaveUp(last: error, attempts: 3)))
    }

    @Test("A server's Retry-After sets the wait")
    func honoursRetryAfter() {
        var machine = machine()
        var generator = SplitMix(seed: 1)
        machine.startAttempt()
        let error = ImagePipeline.Error.httpStatus(Self.url, statusCode: 429, retryAfter: .seconds(5))
        #expect(machine.failure(error, taskCancelled: false, using: &generator) == .retry(after: .seconds(5)))
    }

    @Test("A failure no retry can cure fails at once, as itself after one attempt")
    func finalAtOnce() {
        var machine = machine()
        var generator = SplitMix(seed: 1)
        machine.startAttempt()
        let error = ImagePipeline.Error.httpStatus(Self.url, statusCode: 404)
        #expect(machine.failure(error, taskCancelled: false, using: &generator) == .fail(error))
    }

    @Test("Cancellation wins over retrying and over the stale copy")
    func cancellation() {
        var machine = machine(stale: Self.staleWithETag, servesExpired: true)
        var generator = SplitMix(seed: 1)
        machine.startAttempt()
        let transient = ImagePipeline.Error.connectionFailed(Self.url, reason: "reset")
        #expect(machine.failure(transient, taskCancelled: true, using: &generator) == .fail(.cancelled(Self.url)))
        #expect(
            machine.failure(.cancelled(Self.url), taskCancelled: false, using: &generator)
                == .fail(.cancelled(Self.url)))
    }

    @Test("The stale copy is served after a transient failure, or after any when expired entries are served")
    func servesStale() {
        var generator = SplitMix(seed: 1)
        var transient = machine(attempts: 1, stale: Self.staleWithETag)
        transient.startAttempt()
        #expect(
            transient.failure(.timedOut(Self.url, .stall, after: .seconds(1)), taskCancelled: false, using: &generator)
                == .serveStale)
        let notFound = ImagePipeline.Error.httpStatus(Self.url, statusCode: 404)
        #expect(transient.failure(notFound, taskCancelled: false, using: &generator) == .fail(notFound))
        var servesExpired = machine(attempts: 1, stale: Self.staleWithETag, servesExpired: true)
        servesExpired.startAttempt()
        #expect(servesExpired.failure(notFound, taskCancelled: false, using: &generator) == .serveStale)
    }
}
