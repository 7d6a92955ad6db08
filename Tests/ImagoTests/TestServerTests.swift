import Foundation
import Imago
import ImagoTestSupport
import Testing

/// The loopback server that the loader tests (and `imago demo`) rely on: what it counts, how its
/// behaviors play out, and that shutdown ends everything.
@Suite struct TestServerTests {
    /// Any loader will do as a client; the loader tests cover the differences.
    private let client = LoaderKind.allCases[0]

    @Test func servesOnLoopbackAtTheURLItReports() async throws {
        try await withTestServer { server in
            #expect(server.baseURL.host == "127.0.0.1")
            #expect(server.port > 0)
            #expect(server.url(for: "a.png") == server.url(for: "/a.png"))
            #expect(server.url(for: "/dir/a.png").absoluteString == "http://127.0.0.1:\(server.port)/dir/a.png")
        }
    }

    @Test func countsRequestsPerPathAndRecordsThem() async throws {
        try await withTestServer { server in
            server.set("/a.png", data: sampleBytes(10))
            server.set("/b.png", data: sampleBytes(10))
            try await client.withLoader { loader in
                _ = try await loader.load(server.url(for: "/a.png"))
                _ = try await loader.load(server.url(for: "/a.png?size=2"), headers: ["X-Trace": "1"])
                _ = try await loader.load(server.url(for: "/b.png"))
            }
            #expect(server.requestCount(for: "/a.png") == 2)
            #expect(server.requestCount(for: "b.png") == 1)
            #expect(server.totalRequestCount == 3)
            let second = try #require(server.requests(for: "/a.png").last)
            #expect(second.target == "/a.png?size=2")
            #expect(second.header("x-trace") == "1")

            server.resetCounts()
            #expect(server.totalRequestCount == 0)
            #expect(server.requests(for: "/a.png").isEmpty)
        }
    }

    @Test func recordsPeaksOfConnectionsAndRequests() async throws {
        try await withTestServer { server in
            for index in 0..<4 {
                server.set("/\(index).png", data: sampleBytes(10))
                server.setBehavior("/\(index).png", .delay(.seconds(1)))
            }
            var configuration = DataLoaderConfiguration()
            configuration.maximumConnections = 8
            try await client.withLoader(configuration) { loader in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<4 {
                        group.addTask { _ = try await loader.load(server.url(for: "/\(index).png")) }
                    }
                    try await group.waitForAll()
                }
            }
            #expect(server.maximumConcurrentRequests == 4)
            #expect(server.maximumConcurrentConnections == 4)
            #expect(await server.waitForConnections(atMost: 0))
        }
    }

    @Test func playsASequenceOnceThenServesNormally() async throws {
        try await withTestServer { server in
            server.set("/a.png", data: sampleBytes(10))
            server.setBehavior("/a.png", .sequence([.status(503, headers: ["Retry-After": "1"]), .dropConnection]))
            let url = server.url(for: "/a.png")
            try await client.withLoader { loader in
                #expect(await loader.error(loading: url) == .httpStatus(url, statusCode: 503))
                #expect(await loader.error(loading: url)?.code == "connection_failed")
                let third = try await loader.load(url)
                let fourth = try await loader.load(url)
                #expect(third.data == sampleBytes(10))
                #expect(fourth.data == sampleBytes(10))
            }
            #expect(server.requestCount(for: "/a.png") == 4)
        }
    }

    @Test func sendsExtraHeaders() async throws {
        try await withTestServer { server in
            server.set("/a.png", data: sampleBytes(10), headers: ["Cache-Control": "max-age=60"])
            server.setBehavior("/a.png", .headers(["Retry-After": "5"]))
            let response = try await client.withLoader { try await $0.load(server.url(for: "/a.png")) }
            #expect(response.headers["cache-control"] == "max-age=60")
            #expect(response.headers["retry-after"] == "5")
        }
    }

    @Test func shutdownEndsEndlessBodiesAndOpenConnections() async throws {
        let server = try await TestServer.start()
        server.setBehavior("/endless", .endless(chunkSize: 1_024))
        server.set("/slow.png", data: sampleBytes(1_000))
        server.setBehavior("/slow.png", .trickle(bytesPerInterval: 1, interval: .seconds(30)))
        var configuration = DataLoaderConfiguration()
        configuration.maximumBodySize = .max
        try await client.withLoader(configuration) { loader in
            let endless = Task { await loader.error(loading: server.url(for: "/endless")) }
            let slow = Task { await loader.error(loading: server.url(for: "/slow.png")) }
            #expect(await eventually { server.totalRequestCount == 2 })
            let started = ContinuousClock.now
            try await server.shutdown()
            #expect(server.currentConnections == 0)
            #expect(await endless.value?.code == "connection_failed")
            #expect(await slow.value?.code == "body_length_mismatch")
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test func refusesConnectionsAfterShutdown() async throws {
        let server = try await TestServer.start()
        server.set("/a.png", data: sampleBytes(10))
        try await server.shutdown()
        let error = try await client.withLoader { await $0.error(loading: server.url(for: "/a.png")) }
        #expect(error?.code == "connection_failed")
        #expect(server.totalRequestCount == 0)
    }
}
