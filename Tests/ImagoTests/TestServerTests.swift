import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Imago
import ImagoTestSupport
import Testing

/// The loopback server that the loader tests rely on: what it counts, how its
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

    @Test func rawSendsTheBytesAsGivenAndCloses() async throws {
        try await withTestServer { server in
            let fields = [("Content-Length", "5"), ("X-Twice", "1"), ("X-Twice", "2")]
            server.setBehavior("/raw", .raw(TestServer.rawResponse(fields: fields, body: Data("hello".utf8))))
            let response = try await client.withLoader { try await $0.load(server.url(for: "/raw")) }
            #expect(response.data == Data("hello".utf8))
            #expect(response.headers["x-twice"] == "1, 2")
            #expect(server.requestCount(for: "/raw") == 1)
            #expect(await server.waitForConnections(atMost: 0))
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
            var configuration = DataLoader.Configuration()
            configuration.maximumConnections = 8
            try await client.withLoader(configuration) { loader in
                try await loader.loadConcurrently((0..<4).map { server.url(for: "/\($0).png") })
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
                #expect(await loader.error(loading: url) == .httpStatus(url, statusCode: 503, retryAfter: .seconds(1)))
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

    #if canImport(Glibc)
    @Test func shutdownEndsEndlessBodiesAndOpenConnections() async throws {
        let server = try await TestServer.start()
        server.setBehavior("/endless", .endless(chunkSize: 1_024))
        server.set("/slow.png", data: sampleBytes(1_000))
        server.setBehavior("/slow.png", .trickle(bytesPerInterval: 1, interval: .seconds(30)))
        // Clients that read a little and then stop, so the endless body fills every buffer.
        let endless = try RawClient(port: server.port, path: "/endless")
        let slow = try RawClient(port: server.port, path: "/slow.png")
        #expect(await endless.read(atLeast: 10_000) >= 10_000)
        #expect(await slow.read(atLeast: 1) >= 1)
        #expect(server.currentConnections == 2)

        let started = ContinuousClock.now
        try await server.shutdown()
        #expect(server.currentConnections == 0)
        #expect(await endless.readToEnd())
        #expect(await slow.readToEnd())
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// Connections still arriving at shutdown (some not yet accepted, some accepted and not yet
    /// served) are each ended, and none is dropped with its writer unfinished: that is a
    /// precondition failure in NIO, which once killed a sanitizer run of the whole suite.
    @Test func shutdownEndsConnectionsThatAreStillArriving() async throws {
        for _ in 0..<8 {
            let server = try await TestServer.start()
            server.set("/a.png", data: sampleBytes(10))
            let clients = try (0..<32).map { _ in try RawClient(port: server.port, path: "/a.png") }
            try await server.shutdown()
            #expect(server.currentConnections == 0)
            for client in clients {
                #expect(await client.readToEnd())
            }
        }
    }
    #endif

    @Test func refusesConnectionsAfterShutdown() async throws {
        let server = try await TestServer.start()
        server.set("/a.png", data: sampleBytes(10))
        try await server.shutdown()
        let error = try await client.withLoader { await $0.error(loading: server.url(for: "/a.png")) }
        // Refused, or (when tests run in parallel) answered by another test's server that has since
        // bound the freed port: never served by this one.
        #expect(error?.code == "connection_failed" || error?.code == "http_status", "\(String(describing: error))")
        #expect(server.totalRequestCount == 0)
    }
}

#if canImport(Glibc)
/// An HTTP/1.1 client on a plain socket that sends one GET and reads only when told, so a test
/// can leave a response unread. Its blocking reads run on a thread of their own, never on the
/// cooperative pool that the server's tasks need.
private final class RawClient: Sendable {
    private let socket: Int32

    init(port: Int, path: String) throws {
        socket = try LoopbackSocket.connect(port: port) { socket in
            var timeout = timeval(tv_sec: 30, tv_usec: 0)  // generous: the suite shares 2 cores with codec tests
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(socket, request, request.count, 0) == request.count else { throw POSIXError(.EIO) }
    }

    deinit { close(socket) }

    /// Reads until `count` bytes have arrived (or the peer closed, or 30 s passed); returns how
    /// many did.
    func read(atLeast count: Int) async -> Int {
        await onOwnThread { self.blockingRead(atLeast: count) }
    }

    /// Reads until the peer closes the connection; false when 30 s pass without a byte or the end.
    func readToEnd() async -> Bool {
        await onOwnThread { self.blockingReadToEnd() }
    }

    private func blockingRead(atLeast count: Int) -> Int {
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while total < count {
            let received = recv(socket, &buffer, buffer.count, 0)
            guard received > 0 else { break }
            total += received
        }
        return total
    }

    private func blockingReadToEnd() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let received = recv(socket, &buffer, buffer.count, 0)
            if received == 0 { return true }
            if received < 0 { return errno == ECONNRESET }
        }
    }

    private func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
#endif
