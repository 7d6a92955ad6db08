#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// Clients that close their connection while their request waits in the proxy's admission
/// queue, against the real server on loopback: their requests leave the queue at once and are
/// never made (their sources never fetched), and the slots go to the clients that stayed.
@Suite(.serialized) struct QueuedClientTests {
    @Test func clientsThatCloseWhileQueuedLeaveTheQueueAndAreNeverMade() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        let image = try Fixtures.jpeg(width: 40, height: 30)
        let held = ["/held-a.jpg", "/held-b.jpg"]
        let gone = ["/gone-1.jpg", "/gone-2.jpg", "/gone-3.jpg"]
        for name in held + gone + ["/kept.jpg"] { origin.set(name, data: image, contentType: "image/jpeg") }
        for name in held { origin.setBehavior(name, .held) }
        var configuration = HostileClientTests.local
        configuration.maximumConcurrentRequests = 2
        configuration.maximumQueuedRequests = 8
        try await withServer(configuration) { server in
            func request(_ name: String) throws -> RawClient {
                let client = try RawClient.connect(port: server.port)
                try client.send("GET \(ServerTests.path("w:10", origin.url(for: name))) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return client
            }
            // Two requests hold both slots (their source answers only when released).
            let holders = try held.map(request)
            defer { for client in holders { client.close() } }
            #expect(await eventually(within: .seconds(30)) { held.allSatisfy { origin.requestCount(for: $0) == 1 } })
            #expect(server.proxy.admissionCounts.running == 2)
            // Four more wait; three of their clients go.
            let leaving = try gone.map(request)
            let staying = try request("/kept.jpg")
            defer { staying.close() }
            #expect(await eventually(within: .seconds(30)) { server.proxy.admissionCounts.waiting == 4 },
                "waiting: \(server.proxy.admissionCounts.waiting)")
            for client in leaving { client.close() }
            #expect(await eventually(within: .seconds(30)) { server.proxy.admissionCounts.waiting == 1 },
                "the closed clients' requests left the queue before any slot was free: \(server.proxy.admissionCounts.waiting) wait")
            #expect(server.proxy.admissionCounts.running == 2)
            for name in held { origin.release(name) }
            for client in holders + [staying] {
                let reply = await client.readResponse(within: .seconds(30))
                #expect(reply?.head.hasPrefix("HTTP/1.1 200") == true, "\(reply?.head.prefix(200) ?? "no response")")
            }
            #expect(origin.requestCount(for: "/kept.jpg") == 1, "the client that stayed was served in its turn")
            for name in gone { #expect(origin.requestCount(for: name) == 0, "\(name) was fetched for a client that had gone") }
            #expect(await eventually(within: .seconds(30)) {
                let counts = server.proxy.admissionCounts
                return counts.running == 0 && counts.waiting == 0
            }, "\(server.proxy.admissionCounts)")
            let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains("imago_serve_queue_abandoned_total 3"), "\(metrics)")
            #expect(metrics.contains("imago_serve_requests_total{status=\"499\"} 3"), "\(metrics)")
        }
    }
}
#endif
