#if os(Linux)
import AsyncHTTPClient
import Foundation
import ImagoTestSupport
import Testing

/// `imago serve --demo`: its origin is the one loopback port it started, and `--allow-host` is
/// honoured beside it; nothing else on loopback is fetched.
@Suite struct DemoServeTests {
    @Test func theDemoFetchesFromItsOwnOriginOnly() async throws {
        try await withServeProcess(arguments: ["--demo", "--allow-unsigned", "--allow-host", "other.test"]) { serve, client in
            let get: (String) async throws -> (status: Int, body: String) = { path in
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(serve.port)\(path)"), timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
                return (Int(response.status.code), String(decoding: body.readableBytesView, as: UTF8.self))
            }
            // The page names the origin's port in its image paths.
            let page = try await get("/")
            #expect(page.status == 200)
            let marker = "127.0.0.1%3A"
            let range = try #require(page.body.range(of: marker), "no origin in the page")
            let originPort = try #require(Int(page.body[range.upperBound...].prefix { $0.isNumber }))
            // The gallery through the proxy.
            let own = try await get("/insecure/w:20/plain/http%3A%2F%2F127.0.0.1%3A\(originPort)%2Fgallery%2F1.jpg")
            #expect(own.status == 200, "\(own.body.prefix(300))")
            // Another port of 127.0.0.1 (where this server itself listens) is refused.
            let other = try await get("/insecure/w:20/plain/http%3A%2F%2F127.0.0.1%3A\(serve.port)%2Fhealthz")
            #expect(other.status == 403, "\(other.body)")
            #expect(other.body.contains("forbidden_source"))
            // A host --allow-host names is not refused by the allow-list (it does not resolve here).
            let named = try await get("/insecure/w:20/plain/http%3A%2F%2Fother.test%2Fa.jpg")
            #expect(!named.body.contains("allow-list"), "\(named.body)")
            // Any other host is.
            let unnamed = try await get("/insecure/w:20/plain/http%3A%2F%2Felsewhere.test%2Fa.jpg")
            #expect(unnamed.status == 403 && unnamed.body.contains("allow-list"), "\(unnamed.body)")
        }
    }
}
#endif
