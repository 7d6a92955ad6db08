import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// The tier of decoded originals: the variants of one source share one decode, within the tier's
/// bounds, for as long as the source is fresh and unchanged.
@Suite("pipeline.decodedOriginals")
struct DecodedOriginalsTests {
    /// A processor that needs `scale` of the source and records what it was handed.
    struct ScaledProcessor: ImageProcessing {
        var scale: Double
        var seen: Seen = Seen()

        final class Seen: Sendable {
            let sizes = Locked<[(pixels: PixelSize, source: PixelSize)]>([])
        }

        var identifier: String { "scaled(\(scale))" }
        func requiredSourceScale(for sourceSize: PixelSize) -> Double { scale }
        func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer {
            seen.sizes.withLock { $0.append((container.pixelSize, container.sourcePixelSize)) }
            return container
        }
    }

    /// A clock the test moves.
    final class TestClock: Sendable {
        private let offset = Locked<TimeInterval>(0)
        func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
        var now: @Sendable () -> Date { { [self] in Date().addingTimeInterval(offset.withLock { $0 }) } }
    }

    static func pipeline(
        _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }
    ) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(memoryCache: nil, connectivity: .alwaysReachable)
        configuration.decodedOriginalsBytes = 32 * 1024 * 1024
        configure(&configuration)
        return ImagePipeline(configuration: configuration)
    }

    @Test("the sizes and processor chains of one URL share one download and one decode")
    func variantsShareOneDecode() async throws {
        try await withTestServer { server in
            server.set("/photo.jpg", data: try Fixtures.jpeg(width: 1600, height: 1200, seed: 3), contentType: "image/jpeg")
            let url = server.url(for: "/photo.jpg")
            let pipeline = Self.pipeline()
            for size in [100, 150, 180] {
                let response = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: size))
                #expect(response.container.pixelSize.width == size)
            }
            #expect(pipeline.statistics().decodeCount == 1, "1/8 (200x150) covers all three")
            #expect(server.requestCount(for: "/photo.jpg") == 1)
            #expect(pipeline.statistics().decodedOriginalsCount == 1)

            // A processor that needs a quarter gets a 1/4 decode, with the source's full size.
            let quarter = ScaledProcessor(scale: 0.25)
            _ = try await pipeline.image(for: ImageRequest(url: url, processors: [quarter]))
            #expect(pipeline.statistics().decodeCount == 2)
            let seen = quarter.seen.sizes.withLock { $0 }
            #expect(seen.first?.pixels == PixelSize(width: 400, height: 300))
            #expect(seen.first?.source == PixelSize(width: 1600, height: 1200))
            // Less than a quarter: the 1/4 entry serves; processors that say nothing get it all.
            let fifth = ScaledProcessor(scale: 0.2)
            let response = try await pipeline.image(for: ImageRequest(url: url, processors: [fifth]))
            #expect(response.source == .memory, "made from the tier")
            #expect(fifth.seen.sizes.withLock { $0 }.first?.pixels == PixelSize(width: 400, height: 300))
            #expect(pipeline.statistics().decodeCount == 2)
            #expect(server.requestCount(for: "/photo.jpg") == 2, "only the new reduction asked the source again")
        }
    }

    @Test("requests arriving together for one source and reduction wait for one decode")
    func concurrentVariantsShareTheDecode() async throws {
        try await withTestServer { server in
            server.set("/photo.jpg", data: try Fixtures.jpeg(width: 1600, height: 1200, seed: 4), contentType: "image/jpeg")
            let url = server.url(for: "/photo.jpg")
            let pipeline = Self.pipeline()
            try await withThrowingTaskGroup(of: PixelSize.self) { group in
                for size in 100..<112 {
                    group.addTask { try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: size)).container.pixelSize }
                }
                for try await size in group { #expect(size.width >= 100) }
            }
            #expect(pipeline.statistics().decodeCount == 1)
        }
    }

    @Test("a decode over the entry fraction is kept at the size asked for, or not at all")
    func entriesOverTheFraction() async throws {
        try await withTestServer { server in
            server.set("/photo.jpg", data: try Fixtures.jpeg(width: 1600, height: 1200, seed: 5), contentType: "image/jpeg")
            let url = server.url(for: "/photo.jpg")
            // 1,000,000 bytes an entry at most.
            let pipeline = Self.pipeline {
                $0.decodedOriginalsBytes = 4_000_000
                $0.decodedOriginalsEntryFraction = 0.25
            }
            _ = try await pipeline.image(for: ImageRequest(url: url, processors: [ScaledProcessor(scale: 1)]))
            #expect(pipeline.statistics().decodedOriginalsCount == 0, "7.7 MB whole, and as asked: nothing kept")
            // A 1/2 decode (800x600, 1.92 MB) for a request that needs 0.3: kept at 480x360.
            _ = try await pipeline.image(for: ImageRequest(url: url, processors: [ScaledProcessor(scale: 0.3)]))
            let statistics = pipeline.statistics()
            #expect(statistics.decodedOriginalsCount == 1)
            #expect(statistics.decodedOriginalsCost <= 1_000_000 && statistics.decodedOriginalsCost >= 480 * 360 * 4)
            #expect(statistics.decodeCount == 2)
            let smaller = ScaledProcessor(scale: 0.28)
            let response = try await pipeline.image(for: ImageRequest(url: url, processors: [smaller]))
            #expect(response.source == .memory && pipeline.statistics().decodeCount == 2, "the reduced copy serves")
            #expect(smaller.seen.sizes.withLock { $0 }.first?.pixels == PixelSize(width: 480, height: 360))
        }
    }

    @Test("entries expire with their source, are fresh again when it is unchanged, and go when it changes")
    func expiryAndFingerprint() async throws {
        try await withTestServer { server in
            server.set(
                "/photo.jpg", data: try Fixtures.jpeg(width: 800, height: 600, seed: 6), contentType: "image/jpeg",
                headers: ["Cache-Control": "max-age=60"])
            let url = server.url(for: "/photo.jpg")
            let clock = TestClock()
            let pipeline = Self.pipeline { $0.now = clock.now }
            let first = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 90))
            #expect(first.expiresAt.map { $0.timeIntervalSince(clock.now()) } ?? 0 > 50)
            _ = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 95))
            #expect(server.requestCount(for: "/photo.jpg") == 1 && pipeline.statistics().decodeCount == 1)

            clock.advance(by: 120)
            _ = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 80))
            #expect(server.requestCount(for: "/photo.jpg") == 2, "stale: the source is asked again")
            #expect(pipeline.statistics().decodeCount == 1, "same bytes: the kept decode serves")
            _ = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 85))
            #expect(server.requestCount(for: "/photo.jpg") == 2, "fresh again")

            clock.advance(by: 120)
            server.set(
                "/photo.jpg", data: try Fixtures.jpeg(width: 800, height: 600, seed: 7), contentType: "image/jpeg",
                headers: ["Cache-Control": "max-age=60"])
            _ = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 70))
            #expect(pipeline.statistics().decodeCount == 2, "changed bytes: decoded again")
            #expect(pipeline.statistics().decodedOriginalsCount == 1, "the old decode is gone")

            // no-store: nothing kept, and what was kept goes.
            server.set(
                "/photo.jpg", data: try Fixtures.jpeg(width: 800, height: 600, seed: 7), contentType: "image/jpeg",
                headers: ["Cache-Control": "no-store"])
            clock.advance(by: 120)
            let response = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 60))
            #expect(!response.isStorable)
            #expect(pipeline.statistics().decodedOriginalsCount == 0)
        }
    }

    @Test("an AVIF source, which cannot be reduced on load, is reduced as soon as it is decoded")
    func avifIsReducedAtOnce() async throws {
        // Skipped where libavif has no AV1 encoder to make the source with.
        guard let avif = try? AVIFEncoder(quality: 0.6).encode(Fixtures.picture(width: 1600, height: 1200, seed: 8)) else { return }
        try await withTestServer { server in
            server.set("/photo.avif", data: avif, contentType: "image/avif")
            let pipeline = Self.pipeline()
            let processor = ScaledProcessor(scale: 0.1)
            _ = try await pipeline.image(for: ImageRequest(url: server.url(for: "/photo.avif"), processors: [processor]))
            #expect(processor.seen.sizes.withLock { $0 }.first?.pixels == PixelSize(width: 200, height: 150))
            let statistics = pipeline.statistics()
            #expect(statistics.decodedOriginalsCount == 1)
            #expect(statistics.decodedOriginalsCost < 200 * 150 * 4 + 1024, "kept at 1/8, not 1600x1200")
            #expect(statistics.peakDecodingBytes == 1600 * 1200 * 4, "counted at full size while it decoded")
        }
    }

    @Test("decodes in flight are counted, within the budget")
    func decodingBytesAreCounted() async throws {
        try await withTestServer { server in
            for index in 0..<6 {
                server.set("/\(index).png", data: try Fixtures.png(width: 400, height: 300, seed: index), contentType: "image/png")
            }
            // Each full decode is 480,000 bytes; room for two at once.
            let pipeline = Self.pipeline { $0.maximumDecodingBytes = 1_000_000 }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<6 {
                    let url = server.url(for: "/\(index).png")
                    group.addTask { _ = try await pipeline.image(for: ImageRequest(url: url, processors: [ScaledProcessor(scale: 1)])) }
                }
                try await group.waitForAll()
            }
            let statistics = pipeline.statistics()
            #expect(statistics.decodeCount == 6)
            #expect(statistics.peakDecodingBytes >= 480_000 && statistics.peakDecodingBytes <= 1_000_000)
            #expect(statistics.decodingBytes == 0)
        }
    }
}
