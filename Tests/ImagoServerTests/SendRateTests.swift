#if os(Linux)
import Foundation
import Glibc
import Imago
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoServer

/// The minimum send rate (``ImagoServer/Configuration/minimumSendRate``) against the real
/// server on loopback: a reader that takes a large response steadily but below the rate is
/// closed, and its share of the response budget freed, though it never stops long enough for
/// the write timeout; a reader above the rate gets the whole body. The rate is high and the
/// grace short here (512 KiB/s, 2 s) so the suite takes seconds; every wait is bounded
/// generously and stops by itself.
@Suite(.serialized) struct SendRateTests {
    static let mebibyte = 1024 * 1024
    static let limits = ImagoServer.Configuration(
        writeTimeout: .seconds(60), minimumSendRate: 512 * 1024, sendRateGrace: .seconds(2))

    /// A 6.8 MiB PNG (more than the sockets' buffers hold: Linux lets a loopback send buffer
    /// grow to 4 MiB) made and cached by a HEAD; returns its path and size.
    static func warmLargeResponse(_ server: RunningServer, origin: TestServer) async throws -> (path: String, size: Int) {
        origin.set("/medium.jpg", data: LargeImage.noiseJPEG(side: 1_536, seed: 28), contentType: "image/jpeg")
        let path = ServerTests.path("f:png", origin.url(for: "/medium.jpg"))
        let warm = try await server.get(path, method: .HEAD)
        let size = try #require(warm.headers["content-length"].flatMap { Int($0) })
        try #require(warm.status == 200 && size >= 6 * mebibyte, "\(warm.status), \(size) bytes")
        return (path, size)
    }

    static func metrics(_ server: RunningServer) async -> String {
        String(decoding: (try? await server.get("/metrics").body) ?? Data(), as: UTF8.self)
    }

    /// 16 KiB every 250 ms (64 KiB/s, an eighth of the rate) on a thread of its own: the
    /// kernel takes the server's bytes every few seconds, so the write timeout (60 s here) never
    /// fires, but the response falls behind the rate and the server closes it. The reader cannot
    /// see the close at once (the socket's buffers still hold megabytes for it), so the server's
    /// count says it; the reader had by then a fraction of the body.
    @Test func aSteadyReaderBelowTheRateIsClosed() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        try await withServer(HostileClientTests.local, server: Self.limits) { server in
            let (path, size) = try await Self.warmLargeResponse(server, origin: origin)
            let reader = try RawClient.connect(port: server.port, receiveBuffer: 64 * 1024)
            let received = Atomic(0)
            let stop = Atomic(false)
            let finished = Atomic(false)
            let start = ContinuousClock.now
            try reader.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let reading = Thread {
                while !stop.load(ordering: .relaxed) {
                    if case .bytes(let count) = reader.read(upTo: 16 * 1024) { received.add(count, ordering: .relaxed) }
                    usleep(250_000)
                }
                reader.close()
                finished.store(true, ordering: .releasing)
            }
            reading.start()
            defer { stop.store(true, ordering: .relaxed) }
            let dropped = "imago_serve_connections_dropped_total{reason=\"send_rate\"} 1"
            #expect(await eventually(within: .seconds(60)) { await Self.metrics(server).contains(dropped) },
                "a reader at 64 KiB/s outlived a minimum rate of 512 KiB/s by a minute")
            let had = received.load(ordering: .relaxed)
            print("SendRateTests: a 64 KiB/s reader of \(size) bytes closed by the rate after \(ContinuousClock.now - start), with \(had) bytes read")
            #expect(had > 0 && had < size / 2, "the reader had \(had) of \(size) bytes when it was closed")
            let metrics = await Self.metrics(server)
            #expect(!metrics.contains("reason=\"write_timeout\""), "the write timeout closed it, not the rate: \(metrics)")
            #expect(await eventually(within: .seconds(10)) {
                await Self.metrics(server).contains("imago_serve_response_in_flight_bytes 0.0")
            }, "the closed reader's share of the budget was freed")
            stop.store(true, ordering: .relaxed)
            #expect(await eventually(within: .seconds(5)) { finished.load(ordering: .acquiring) })
        }
        MemoryTrim.now()  // what the server freed, back to the system (see MemoryTrim)
    }

    /// A reader well above the rate gets the whole body, and the connection is not dropped.
    @Test func aReaderAboveTheRateGetsTheWholeBody() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        try await withServer(HostileClientTests.local, server: Self.limits) { server in
            let (path, size) = try await Self.warmLargeResponse(server, origin: origin)
            let reader = try RawClient.connect(port: server.port)
            defer { reader.close() }
            try reader.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let reply = await reader.readResponse(within: .seconds(60))
            #expect(reply?.head.hasPrefix("HTTP/1.1 200") == true && reply?.bodyLength == size,
                "\(reply?.bodyLength ?? 0) of \(size) bytes")
            let metrics = await Self.metrics(server)
            #expect(!metrics.contains("imago_serve_connections_dropped_total"), "\(metrics)")
        }
        MemoryTrim.now()
    }
}
#endif
