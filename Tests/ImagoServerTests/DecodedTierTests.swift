#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago
@testable import ImagoServer

/// The decoded tier: the sizes of one source share one decode, within the tier's bytes, for as
/// long as the source is fresh and unchanged.
@Suite struct DecodedTierTests {
    /// A clock the test moves.
    final class TestClock: Sendable {
        private let offset = Locked<TimeInterval>(0)
        func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
        var now: @Sendable () -> Date { { [self] in Date().addingTimeInterval(offset.withLock { $0 }) } }
    }

    static func withProxy(
        clock: TestClock = TestClock(), _ configure: (inout ImageProxyConfiguration) -> Void = { _ in },
        _ body: (ImageProxy, TestServer) async throws -> Void
    ) async throws {
        let origin = try await TestServer.start()
        origin.set("/photo.jpg", data: try Fixtures.jpeg(width: 1600, height: 1200, seed: 11), contentType: "image/jpeg")
        var configuration = ServerTests.local
        configuration.now = clock.now
        configure(&configuration)
        let proxy = ImageProxy.testing(configuration)
        do {
            try await body(proxy, origin)
        } catch {
            await proxy.shutdown()
            try? await origin.shutdown()
            throw error
        }
        await proxy.shutdown()
        try await origin.shutdown()
    }

    static func hits(_ proxy: ImageProxy, tier: String) -> Int {
        let line = proxy.metrics.emit().split(separator: "\n").first { $0.hasPrefix("imago_serve_cache_hits_total{tier=\"\(tier)\"}") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    @Test func theSizesOfASourceShareOneDecode() async throws {
        try await Self.withProxy { proxy, origin in
            let source = origin.url(for: "/photo.jpg")
            for width in stride(from: 100, through: 190, by: 10) {
                let reply = await proxy.respond(path: ServerTests.path("rs:fit:\(width):\(width)/f:jpeg", source))
                #expect(reply.status == 200)
                #expect(ServerTests.size(of: reply.body)?.width == width)
            }
            // Other kinds of request within the same pixels share it too.
            for options in ["rs:fill:150:150", "c:0.5:0.5/w:90", "rot:90/w:100", "rs:fill:120:80/g:sm", "w:150/pd:5/bl:1"] {
                #expect(await proxy.respond(path: ServerTests.path(options, source)).status == 200, "\(options)")
            }
            #expect(proxy.decodeCount == 1, "one decode for 15 variants")
            #expect(origin.requestCount(for: "/photo.jpg") == 1)
            #expect(Self.hits(proxy, tier: "decoded") == 14)
            #expect(Self.hits(proxy, tier: "network") == 1)
            #expect(proxy.decodedTierTotals.count == 1)
            #expect(proxy.decodedTierTotals.bytes >= 200 * 150 * 4, "the 1/8 decode: 200x150")
        }
    }

    /// imgproxy's `IMGPROXY_DISABLE_SHRINK_ON_LOAD`: the source decoded (and kept) at full size.
    @Test(arguments: [true, false])
    func shrinkOnLoadCanBeTurnedOff(shrinksOnLoad: Bool) async throws {
        var configuration = ImageProxyConfiguration()
        try ServeEnvironment(["IMGPROXY_DISABLE_SHRINK_ON_LOAD": shrinksOnLoad ? "false" : "true"]).apply(to: &configuration)
        #expect(configuration.shrinksOnLoad == shrinksOnLoad)
        try await Self.withProxy({ $0.shrinksOnLoad = configuration.shrinksOnLoad }) { proxy, origin in
            let reply = await proxy.respond(path: ServerTests.path("rs:fit:100:100/f:png", origin.url(for: "/photo.jpg")))
            #expect(reply.status == 200 && ServerTests.size(of: reply.body)?.width == 100)
            let full = 1600 * 1200 * 4
            #expect(proxy.decodedTierTotals.count == 1)
            if shrinksOnLoad {
                #expect(proxy.decodedTierTotals.bytes < full / 16, "the 1/8 decode: 200x150")
            } else {
                #expect(proxy.decodedTierTotals.bytes >= full)
            }
        }
    }

    /// A request that needs more pixels than the kept decode has decodes again at a larger scale,
    /// and keeps that too; smaller requests then use the smallest entry that covers them.
    @Test func largerSizesDecodeAgainAtALargerScale() async throws {
        try await Self.withProxy { proxy, origin in
            let source = origin.url(for: "/photo.jpg")
            #expect(await proxy.respond(path: ServerTests.path("w:100", source)).status == 200)  // 1/8: 200x150
            #expect(proxy.decodeCount == 1)
            #expect(await proxy.respond(path: ServerTests.path("w:700", source)).status == 200)  // 1/2: 800x600
            #expect(proxy.decodeCount == 2)
            for options in ["w:600", "w:400", "w:180", "rs:fill:700:500"] {
                #expect(await proxy.respond(path: ServerTests.path(options, source)).status == 200)
            }
            #expect(proxy.decodeCount == 2)
            #expect(await proxy.respond(path: ServerTests.path("w:1000", source)).status == 200)  // full size
            #expect(proxy.decodeCount == 3)
            #expect(proxy.decodedTierTotals.count == 3)
            let keepsProfiles = await proxy.respond(path: ServerTests.path("w:100/scp:0", source))
            #expect(keepsProfiles.status == 200 && proxy.decodeCount == 4, "kept profiles are decoded apart")
        }
    }

    /// Requests for a new source that arrive together wait for one decode.
    @Test func requestsArrivingTogetherShareTheDecode() async throws {
        try await Self.withProxy { proxy, origin in
            origin.setBehavior("/photo.jpg", .held)
            let source = origin.url(for: "/photo.jpg")
            let replies = Task {
                await withTaskGroup(of: Int.self) { group in
                    for width in 100..<110 {
                        group.addTask { await proxy.respond(path: ServerTests.path("w:\(width)", source)).status }
                    }
                    return await group.reduce(into: [Int]()) { $0.append($1) }
                }
            }
            #expect(await eventually { origin.requestCount(for: "/photo.jpg") == 1 })
            try await Task.sleep(for: .milliseconds(200))  // the others join the download
            origin.release("/photo.jpg")
            #expect(await replies.value == Array(repeating: 200, count: 10))
            #expect(proxy.decodeCount == 1)
        }
    }

    @Test func theTierIsBoundedByBytesAndEvictsTheLeastRecent() async throws {
        // Each 1/2 decode of a 1600x1200 source is 800x600x4 = 1.92 MB; room for two.
        // An entry may take half the tier here (the default is a quarter: see `ProxyPipelineTests`).
        try await Self.withProxy({
            $0.decodedSourceBytes = 4_000_000
            $0.decodedSourceEntryFraction = 0.5
        }) { proxy, origin in
            for index in 0..<4 {
                origin.set("/\(index).jpg", data: try Fixtures.jpeg(width: 1600, height: 1200, seed: index), contentType: "image/jpeg")
            }
            for index in 0..<4 {
                #expect(await proxy.respond(path: ServerTests.path("w:700", origin.url(for: "/\(index).jpg"))).status == 200)
                #expect(proxy.decodedTierTotals.bytes <= 4_000_000)
            }
            #expect(proxy.decodedTierTotals.count == 2 && proxy.decodeCount == 4)
            #expect(await proxy.respond(path: ServerTests.path("w:650", origin.url(for: "/3.jpg"))).status == 200)
            #expect(proxy.decodeCount == 4, "the newest is kept")
            #expect(await proxy.respond(path: ServerTests.path("w:650", origin.url(for: "/0.jpg"))).status == 200)
            #expect(proxy.decodeCount == 5, "the oldest was evicted")
        }
        try await Self.withProxy({ $0.decodedSourceBytes = 0 }) { proxy, origin in
            for width in [100, 110] { #expect(await proxy.respond(path: ServerTests.path("w:\(width)", origin.url(for: "/photo.jpg"))).status == 200) }
            #expect(proxy.decodeCount == 2 && proxy.decodedTierTotals.count == 0, "0 turns the tier off")
        }
    }

    @Test func noStoreSourcesAreNeverKept() async throws {
        try await Self.withProxy { proxy, origin in
            origin.setBehavior("/photo.jpg", .headers(["Cache-Control": "no-store"]))
            let source = origin.url(for: "/photo.jpg")
            for width in [100, 110, 120] { #expect(await proxy.respond(path: ServerTests.path("w:\(width)", source)).status == 200) }
            #expect(await proxy.respond(path: ServerTests.path("w:120", source)).status == 200)
            #expect(proxy.decodeCount == 4, "each request decodes; not even the response is kept")
            #expect(proxy.decodedTierTotals.count == 0)
            // A source that turns no-store drops what was kept of it.
            origin.set("/other.jpg", data: try Fixtures.jpeg(width: 800, height: 600, seed: 2), contentType: "image/jpeg")
            let other = origin.url(for: "/other.jpg")
            #expect(await proxy.respond(path: ServerTests.path("w:100", other)).status == 200)
            #expect(proxy.decodedTierTotals.count == 1)
            origin.setBehavior("/other.jpg", .headers(["Cache-Control": "no-store"]))
            #expect(await proxy.respond(path: ServerTests.path("w:500", other)).status == 200)  // needs more pixels: asks the source
            #expect(proxy.decodedTierTotals.count == 0)
        }
    }

    /// Kept decodes live as long as their source is fresh: after that the source is asked again;
    /// unchanged bytes make them fresh again without a decode, changed bytes replace them.
    @Test func expiryRevalidationAndChange() async throws {
        let clock = TestClock()
        try await Self.withProxy(clock: clock) { proxy, origin in
            origin.setBehavior("/photo.jpg", .headers(["Cache-Control": "max-age=60"]))
            let source = origin.url(for: "/photo.jpg")
            let first = await proxy.respond(path: ServerTests.path("w:100/f:png", source))
            #expect(await proxy.respond(path: ServerTests.path("w:110", source)).status == 200)
            #expect(proxy.decodeCount == 1 && origin.requestCount(for: "/photo.jpg") == 1)

            clock.advance(by: 120)  // the source is stale
            #expect(await proxy.respond(path: ServerTests.path("w:120", source)).status == 200)
            #expect(origin.requestCount(for: "/photo.jpg") == 2, "the source is asked again")
            #expect(proxy.decodeCount == 1, "same bytes: the kept decode serves")
            #expect(await proxy.respond(path: ServerTests.path("w:130", source)).status == 200)
            #expect(origin.requestCount(for: "/photo.jpg") == 2, "fresh again for another 60 s")

            clock.advance(by: 120)
            origin.set("/photo.jpg", data: try Fixtures.jpeg(width: 1600, height: 1200, seed: 99), contentType: "image/jpeg")
            origin.setBehavior("/photo.jpg", .headers(["Cache-Control": "max-age=60"]))
            let changed = await proxy.respond(path: ServerTests.path("w:100/f:png", source))
            #expect(proxy.decodeCount == 2, "changed bytes: decoded again")
            #expect(changed.status == 200 && changed.body != first.body, "the response tier expired with its source")
            #expect(proxy.decodedTierTotals.count == 1, "the old decode is gone")
        }
    }
}
#endif
