import Foundation
import Imago
import ImagoTestSupport
import Testing

/// `Configuration.requestModifier`: called before every attempt, with either loader, and what it
/// returns is what the server sees.
@Suite("Request modifier")
struct RequestModifierTests {
    /// Hands out `token-1`, `token-2`… and remembers the requests it was shown.
    final class TokenService: Sendable {
        private let state = Locked<(issued: Int, seen: [DataLoader.Request])>((0, []))

        var seen: [DataLoader.Request] { state.withLock { $0.seen } }

        @Sendable func modify(_ request: DataLoader.Request) async throws -> DataLoader.Request {
            await Task.yield()  // an async token refresh
            let token = state.withLock { state in
                state.issued += 1
                state.seen.append(request)
                return "token-\(state.issued)"
            }
            var request = request
            request.headers["Authorization"] = "Bearer \(token)"
            return request
        }
    }

    static func pipeline(
        _ fixture: PipelineFixture, loader: any DataLoading, clock: ManualClock = ManualClock(),
        modifier: @escaping ImagePipeline.RequestModifier
    ) throws -> ImagePipeline {
        var configuration = try fixture.configuration()
        configuration.dataLoader = loader
        configuration.clock = clock
        configuration.retryPolicy = RetryPolicy(maximumAttempts: 3)
        configuration.requestModifier = modifier
        return ImagePipeline(configuration: configuration)
    }

    @Test("The server sees the modified header, with either loader", arguments: LoaderKind.allCases)
    func serverSeesModifiedHeader(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            try await kind.withLoader { loader in
                let url = try fixture.serveJPEG()
                let tokens = TokenService()
                let pipeline = try Self.pipeline(fixture, loader: loader, modifier: tokens.modify)
                var request = ImageRequest(url: url)
                request.headers["X-Client"] = "imago-tests"

                let response = try await pipeline.image(for: request)

                #expect(response.source == .network)
                let recorded = fixture.server.requests(for: "/photo.jpg")
                #expect(recorded.map { $0.header("authorization") } == ["Bearer token-1"])
                #expect(recorded.first?.header("x-client") == "imago-tests")
                #expect(tokens.seen.map(\.url) == [url])
                #expect(tokens.seen.first?.headers["X-Client"] == "imago-tests")
            }
        }
    }

    @Test("Each retry asks for a fresh request", arguments: LoaderKind.allCases)
    func everyAttemptIsModified(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            try await kind.withLoader { loader in
                let url = try fixture.serveJPEG()
                fixture.server.setBehavior("/photo.jpg", .sequence([.status(503), .status(503)]))
                let tokens = TokenService()
                let clock = ManualClock()
                let pipeline = try Self.pipeline(fixture, loader: loader, clock: clock, modifier: tokens.modify)

                let result = await drive(clock, by: .seconds(60), until: Task { try await pipeline.image(for: ImageRequest(url: url)) })

                #expect(try result.get().timing.attempts == 3)
                let headers = fixture.server.requests(for: "/photo.jpg").map { $0.header("authorization") }
                #expect(headers == ["Bearer token-1", "Bearer token-2", "Bearer token-3"])
            }
        }
    }

    @Test("A modifier that throws sends nothing and fails with what it threw")
    func throwingModifier() async throws {
        struct TokenUnavailable: Swift.Error {}
        try await PipelineFixture.with { fixture in
            try await LoaderKind.urlSession.withLoader { loader in
                let url = try fixture.serveJPEG()
                let clock = ManualClock()
                // Any error is a transient connection failure: retried, then reported.
                let pipeline = try Self.pipeline(fixture, loader: loader, clock: clock) { _ in throw TokenUnavailable() }
                let result = await drive(clock, by: .seconds(60), until: Task { try await pipeline.image(for: ImageRequest(url: url)) })
                #expect(throws: ImagePipeline.Error.self) { try result.get() }
                if case .failure(let error as ImagePipeline.Error) = result,
                    case .connectionFailed(let failed, let reason) = error.underlying
                {
                    #expect(error.attempts == 3)
                    #expect(failed == url)
                    #expect(reason.contains("TokenUnavailable") && reason.contains("requestModifier"), "\(reason)")
                } else {
                    Issue.record("expected connectionFailed, got \(result)")
                }
                // A pipeline error passes through as it is, and a 401 is not retried.
                let refusing = try Self.pipeline(fixture, loader: loader) { request in
                    throw ImagePipeline.Error.httpStatus(request.url, statusCode: 401)
                }
                await #expect(throws: ImagePipeline.Error.httpStatus(url, statusCode: 401)) {
                    try await refusing.image(for: ImageRequest(url: url))
                }
                #expect(fixture.server.requestCount(for: "/photo.jpg") == 0)
            }
        }
    }

    @Test("Cache hits never call the modifier")
    func cacheHitsSkipModifier() async throws {
        try await PipelineFixture.with { fixture in
            try await LoaderKind.urlSession.withLoader { loader in
                let url = try fixture.serveJPEG()
                let tokens = TokenService()
                let pipeline = try Self.pipeline(fixture, loader: loader, modifier: tokens.modify)
                _ = try await pipeline.image(for: ImageRequest(url: url))
                _ = try await pipeline.image(for: ImageRequest(url: url))  // memory
                await pipeline.waitForDiskWrites()
                _ = try await pipeline.data(for: ImageRequest(url: url))  // disk
                #expect(tokens.seen.count == 1)
            }
        }
    }
}
