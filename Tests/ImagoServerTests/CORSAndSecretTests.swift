#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_ALLOW_ORIGIN` (CORS headers on processing responses and preflights) and
/// `IMGPROXY_SECRET` (`Authorization: Bearer`), through a real in-process server.
@Suite struct CORSAndSecretTests {
    static func withLocalServer(_ limits: ImagoServer.Configuration, _ body: (RunningServer) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Fixtures.jpeg(width: 64, height: 48).write(to: root.appendingPathComponent("a.jpg"))
        var configuration = ImageProxyConfiguration()
        configuration.localFilesystemRoot = root.path
        try await withServer(configuration, server: limits, body)
    }

    static let path = "/insecure/rs:fit:16:16/plain/local:///a.jpg"

    @Test func theEnvironmentReadsBothAndNeverEchoesTheSecret() throws {
        let environment = try ServeEnvironment(["IMGPROXY_ALLOW_ORIGIN": "https://shop.example", "IMGPROXY_SECRET": "s3cret value"])
        #expect(environment.allowOrigin == "https://shop.example" && environment.secret == "s3cret value")
        let none = try ServeEnvironment([:])
        #expect(none.allowOrigin == nil && none.secret == nil)
    }

    @Test func theAllowedOriginIsOnEveryProcessingAnswerAndPreflight() async throws {
        var limits = ImagoServer.Configuration()
        limits.allowOrigin = "*"
        try await Self.withLocalServer(limits) { server in
            let image = try await server.get(Self.path)
            #expect(image.status == 200 && image.headers["access-control-allow-origin"] == "*")
            #expect(image.headers["access-control-allow-methods"] == "GET, OPTIONS")
            let refused = try await server.get("/insecure/w:nope/plain/local:///a.jpg")
            #expect(refused.status == 400 && refused.headers["access-control-allow-origin"] == "*")
            let preflight = try await server.get(Self.path, method: .OPTIONS)
            #expect(preflight.status == 200 && preflight.headers["access-control-allow-origin"] == "*")
            #expect(try await server.get("/health").headers["access-control-allow-origin"] == nil)
        }
        try await Self.withLocalServer(ImagoServer.Configuration()) { server in
            let image = try await server.get(Self.path)
            #expect(image.status == 200 && image.headers["access-control-allow-origin"] == nil)
        }
    }

    @Test func aSecretIsRequiredAsABearerToken() async throws {
        var limits = ImagoServer.Configuration()
        limits.secret = "s3cret"
        try await Self.withLocalServer(limits) { server in
            let good = try await server.get(Self.path, headers: ["Authorization": "Bearer s3cret"])
            #expect(good.status == 200)
            for header in [nil, "Bearer s3cre", "Bearer s3cretx", "bearer s3cret", "s3cret"] as [String?] {
                let reply = try await server.get(Self.path, headers: header.map { ["Authorization": $0] } ?? [:])
                #expect(reply.status == 403 && reply.errorCode == "invalid_secret", "\(header ?? "none")")
                #expect(!String(decoding: reply.body, as: UTF8.self).contains("s3cret"))
            }
            #expect(try await server.get("/health").status == 200, "health needs no secret")
        }
    }
}
#endif
