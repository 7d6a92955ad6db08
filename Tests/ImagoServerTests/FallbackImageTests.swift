#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// The fallback image (imgproxy's `IMGPROXY_FALLBACK_IMAGE_*`, and `fiu` per request): when the
/// source cannot be fetched, the answer is the fallback rendered with the request's options, with
/// the configured status and `max-age`.
@Suite struct FallbackImageTests {
    /// An unreachable source (nothing listens on port 1) and the options of a 16 px PNG.
    static func path(_ extra: String = "") -> String {
        "/insecure/rs:fit:16:16\(extra)/plain/" + URLSigner.escaped("http://127.0.0.1:1/a.jpg") + "@png"
    }

    static func configuration(_ fallback: FallbackImage?) -> ImageProxyConfiguration {
        var configuration = ImageProxyConfiguration(sourcePolicy: SourcePolicy(allowsPrivateNetworks: true))
        configuration.fallbackImage = fallback
        return configuration
    }

    static func size(_ body: Data) throws -> (Int, Int) {
        let bitmap = try ImageDecoder().decode(body, context: DecodingContext(format: .png)).bitmap()
        return (bitmap.width, bitmap.height)
    }

    @Test func theConfiguredFallbackIsRenderedWithTheRequestsOptions() async throws {
        let fallback = FallbackImage(source: .data(try Fixtures.jpeg(width: 64, height: 48)), statusCode: 203, ttl: 60)
        let server = try await RunningServer.start(Self.configuration(fallback))
        do {
            let reply = try await server.get(Self.path())
            #expect(reply.status == 203)
            #expect(reply.headers["content-type"] == "image/png")
            #expect(reply.headers["cache-control"] == "public, max-age=60")
            #expect(try Self.size(reply.body) == (16, 12))
            // Not kept as the source's answer: asked again, it is made again (and fails again).
            let again = try await server.get(Self.path())
            #expect(again.status == 203)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test func statusZeroAnswersTheFailuresStatus() async throws {
        let fallback = FallbackImage(source: .data(try Fixtures.jpeg(width: 64, height: 48)), statusCode: 0)
        let server = try await RunningServer.start(Self.configuration(fallback))
        do {
            let reply = try await server.get(Self.path())
            #expect(reply.status == 502)
            #expect(reply.headers["content-type"] == "image/png")
            #expect(reply.headers["cache-control"] == "public, max-age=3600")
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test func withoutAFallbackTheFailureIsAnswered() async throws {
        let server = try await RunningServer.start(Self.configuration(nil))
        do {
            let reply = try await server.get(Self.path())
            #expect(reply.status == 502 && reply.errorCode == "source_failed")
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test func aPathsFallbackURLIsUsedForThatRequest() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.set("/fallback.jpg", data: try Fixtures.jpeg(width: 40, height: 80, seed: 3), contentType: "image/jpeg")
        let server = try await RunningServer.start(Self.configuration(FallbackImage(statusCode: 404, ttl: 5)))
        do {
            let encoded = Base64URL.encode(Array(origin.url(for: "/fallback.jpg").absoluteString.utf8))
            let reply = try await server.get(Self.path("/fiu:\(encoded)"))
            #expect(reply.status == 404)
            #expect(reply.headers["cache-control"] == "public, max-age=5")
            #expect(try Self.size(reply.body) == (8, 16))
            let bad = try await server.get(Self.path("/fiu:%%%"))
            #expect(bad.status == 400)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test func theEnvironmentConfiguresTheFallback() throws {
        let data = try Fixtures.jpeg(width: 8, height: 8)
        let environment = try ServeEnvironment([
            "IMGPROXY_FALLBACK_IMAGE_DATA": data.base64EncodedString(), "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "404",
            "IMGPROXY_FALLBACK_IMAGE_TTL": "30",
        ])
        #expect(environment.fallbackImage == FallbackImage(source: .data(data), statusCode: 404, ttl: 30))
        #expect(throws: ServeEnvironmentError.self) { try ServeEnvironment(["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "42"]) }
        let url = try ServeEnvironment(["IMGPROXY_FALLBACK_IMAGE_URL": "https://example.com/f.png"])
        #expect(url.fallbackImage?.source == .url(URL(string: "https://example.com/f.png")!))
    }
}
#endif
