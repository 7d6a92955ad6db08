#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_PATH_PREFIX`: read from the environment (bad values stop the start,
/// naming the variable), and every route served under it by a real in-process server.
@Suite struct PathPrefixTests {
    @Test(arguments: [
        ("/img", "/img"), ("/img/", "/img"), ("/a/b-c.d_e~f", "/a/b-c.d_e~f"), ("/", nil), ("//", nil),
    ] as [(String, String?)])
    func aPrefixIsReadAsAPathWithoutItsTrailingSlash(value: String, prefix: String?) throws {
        #expect(try ServeEnvironment(["IMGPROXY_PATH_PREFIX": value]).pathPrefix == prefix)
    }

    @Test(arguments: ["img", "/img//x", "/a/../b", "/{id}", "/:name", "/*", "/a b", "/caf%C3%A9"])
    func aPrefixThatIsNoPlainPathNamesItsVariable(value: String) {
        #expect {
            _ = try ServeEnvironment(["IMGPROXY_PATH_PREFIX": value])
        } throws: { error in
            (error as? ServeEnvironmentError)?.variable == "IMGPROXY_PATH_PREFIX"
        }
    }

    @Test func everyRouteIsUnderThePrefixAndNothingOutsideIt() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-prefix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Fixtures.jpeg(width: 64, height: 48).write(to: root.appendingPathComponent("a.jpg"))
        let signer = try URLSigner(hexKey: String(repeating: "0123456789abcdef", count: 4), hexSalt: "fedcba")
        var configuration = ImageProxyConfiguration(signer: signer)
        configuration.localFilesystemRoot = root.path
        var limits = ImagoServer.Configuration()
        limits.pathPrefix = "/img/v1"
        limits.healthCheckPath = "/ping"
        try await withServer(configuration, server: limits) { server in
            // The signature covers what follows the prefix, as imgproxy signs it.
            let signed = signer.signedPath(options: ["rs:fit:16:16"], source: URL(string: "local:///a.jpg")!)
            let image = try await server.get("/img/v1" + signed)
            #expect(image.status == 200 && image.headers["content-type"].map { $0.hasPrefix("image/") } == true)
            let head = try await server.get("/img/v1" + signed, method: .HEAD)
            #expect(head.status == 200)
            for path in ["/img/v1/health", "/img/v1/healthz", "/img/v1/ping"] {
                let health = try await server.get(path)
                #expect(health.status == 200 && health.headers["cache-control"] == "no-cache", "\(path)")
            }
            #expect(try await server.get("/img/v1/metrics").status == 200)
            for path in [signed, "/health", "/ping", "/metrics", "/img" + signed, "/img/v1x" + signed] {
                #expect(try await server.get(path).status == 404, "\(path)")
            }
        }
    }
}
#endif
