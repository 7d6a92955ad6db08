import Foundation
import Imago
import ImagoTestSupport
import Testing

@Suite("Retries with an injected clock")
struct RetryTests {
    /// A pipeline whose back-off sleeps on `clock`.
    static func pipeline(_ fixture: PipelineFixture, clock: ManualClock, policy: RetryPolicy) throws -> ImagePipeline {
        var configuration = try fixture.configuration()
        configuration.clock = clock
        configuration.retryPolicy = policy
        return ImagePipeline(configuration: configuration)
    }

    @Test("Transient failures are retried until one succeeds")
    func retriesUntilSuccess() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            fixture.server.setBehavior("/photo.jpg", .sequence([.status(503), .dropConnection]))
            let clock = ManualClock()
            let pipeline = try Self.pipeline(fixture, clock: clock, policy: RetryPolicy(maximumAttempts: 3))
            let result = await drive(clock, by: .seconds(60), until: Task { try await pipeline.image(for: ImageRequest(url: url)) })
            let response = try result.get()
            #expect(response.source == .network)
            #expect(response.timing.attempts == 3)
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 3)
        }
    }

    @Test("Attempts stop at the policy's maximum")
    func stopsAtCap() async throws {
        try await PipelineFixture.with { fixture in
            _ = try fixture.serveJPEG()
            fixture.server.setBehavior("/photo.jpg", .status(500))
            let url = fixture.server.url(for: "/photo.jpg")
            let clock = ManualClock()
            let pipeline = try Self.pipeline(fixture, clock: clock, policy: RetryPolicy(maximumAttempts: 4))
            let result = await drive(clock, by: .seconds(60), until: Task { try await pipeline.image(for: ImageRequest(url: url)) })
            #expect(throws: ImagePipeline.Error.gaveUp(last: .httpStatus(url, statusCode: 500), attempts: 4)) {
                try result.get()
            }
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 4)
        }
    }

    @Test("An error after retries says how many attempts were made and keeps the last failure")
    func errorCountsAttempts() async throws {
        try await PipelineFixture.with { fixture in
            _ = try fixture.serveJPEG()
            fixture.server.setBehavior("/photo.jpg", .status(503))
            let url = fixture.server.url(for: "/photo.jpg")
            let clock = ManualClock()
            let pipeline = try Self.pipeline(fixture, clock: clock, policy: .default)
            let result = await drive(clock, by: .seconds(60), until: Task { try await pipeline.image(for: ImageRequest(url: url)) })
            let error = try #require(#expect(throws: ImagePipeline.Error.self) { try result.get() })
            #expect(error.attempts == 3)
            #expect(error.code == "http_status")
            #expect(error.underlying == .httpStatus(url, statusCode: 503))
            #expect(error.isTransient)
            #expect(error.description.hasSuffix("HTTP 503 Service Unavailable; no image was loaded (gave up after 3 attempts)."))
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 3)
        }
    }

    @Test("A 404 is not retried", arguments: [404, 403, 400])
    func clientErrorsAreFinal(status: Int) async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.setBehavior("/missing.jpg", .status(status))
            let url = fixture.server.url(for: "/missing.jpg")
            let pipeline = try Self.pipeline(fixture, clock: ManualClock(), policy: RetryPolicy(maximumAttempts: 5))
            await #expect(throws: ImagePipeline.Error.httpStatus(url, statusCode: status)) {
                try await pipeline.image(for: ImageRequest(url: url))
            }
            #expect(fixture.server.requestCount(for: "/missing.jpg") == 1)
        }
    }

    @Test("Retry-After is honoured: no second attempt before it has passed")
    func retryAfter() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            fixture.server.setBehavior("/photo.jpg", .sequence([.status(429, headers: ["Retry-After": "7"])]))
            let clock = ManualClock()
            let policy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1))
            let pipeline = try Self.pipeline(fixture, clock: clock, policy: policy)
            let task = Task { try await pipeline.image(for: ImageRequest(url: url)) }
            await clock.waitForSleepers(count: 1)
            clock.advance(by: .milliseconds(6_900))
            try await Task.sleep(for: .milliseconds(50))
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
            clock.advance(by: .milliseconds(100))
            let response = try await task.value
            #expect(response.timing.attempts == 2)
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 2)
        }
    }

    @Test("Undecodable bytes are not retried")
    func decodeFailuresAreFinal() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.setBehavior("/page.jpg", .html)
            let url = fixture.server.url(for: "/page.jpg")
            let pipeline = try Self.pipeline(fixture, clock: ManualClock(), policy: RetryPolicy(maximumAttempts: 5))
            await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: ImageRequest(url: url)) }
            #expect(fixture.server.requestCount(for: "/page.jpg") == 1)
        }
    }
}
