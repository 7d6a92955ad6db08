#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// `X-Content-Type-Options: nosniff` on every response: images, 304, errors of the proxy and of
/// the router, `/healthz`, `/metrics`, the page, and the 400 Hummingbird writes for a malformed
/// request.
@Suite struct NoSniffTests {
    @Test func everyResponseSaysNoSniff() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.set("/a.jpg", data: try Fixtures.jpeg(width: 40, height: 30), contentType: "image/jpeg")
        let page = DemoPage(items: [DemoPage.Item(source: origin.url(for: "/a.jpg"), caption: "a")], signer: nil)
        let server = try await RunningServer.start(ServerTests.local, page: page)
        do {
            let image = ServerTests.path("w:20", origin.url(for: "/a.jpg"))
            let first = try await server.get(image)
            let replies: [(String, RunningServer.Reply)] = [
                ("image", first),
                ("304", try await server.get(image, headers: ["If-None-Match": first.headers["etag"] ?? "*"])),
                ("proxy error", try await server.get("/nothing")),
                ("router 404", try await server.get(image, method: .POST)),
                ("healthz", try await server.get("/healthz")),
                ("metrics", try await server.get("/metrics")),
                ("page", try await server.get("/")),
            ]
            #expect(replies.map(\.1.status) == [200, 304, 400, 404, 200, 200, 200])
            for (name, reply) in replies {
                #expect(reply.headers["x-content-type-options"] == "nosniff", "\(name): \(reply.headers)")
            }
            let client = try RawClient.connect(port: server.port)
            defer { client.close() }
            try client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBroken header\r\n\r\n")
            var reply = ""
            #expect(await eventually(within: .seconds(5)) {
                reply += client.readText() ?? ""
                return reply.contains("\r\n\r\n")
            })
            #expect(reply.hasPrefix("HTTP/1.1 400"), "\(reply)")
            #expect(reply.lowercased().contains("x-content-type-options: nosniff"), "\(reply)")
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }
}
#endif
