import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// What the tier of decoded originals must never do: serve pixels of other bytes, outlive a
/// removal from the caches, or let one request's limits decide another's answer.
@Suite("pipeline.decodedOriginals.integrity")
struct DecodedOriginalsIntegrityTests {
    static let source = DecodedOriginals.SourceKey(original: CacheKey.original("https://example.com/a.jpg"), handling: .convertToSRGB)

    static func entry(fingerprint: String) throws -> DecodedOriginals.Entry {
        let container = try ImageContainer(bitmap: Bitmap(width: 100, height: 75, fill: RGBA(10, 20, 30)), format: .jpeg)
        return DecodedOriginals.Entry(
            container: container, expiresAt: nil, isStorable: true, fingerprint: fingerprint, encodedByteCount: 1_000)
    }

    @Test("a decode of older bytes that finishes after newer bytes were loaded is not kept, and lookups after a load see only its bytes")
    func olderBytesAreNeverKept() throws {
        let tier = DecodedOriginals(byteLimit: 1 << 20, entryFraction: 1)
        let key = DecodedOriginals.Key(source: Self.source, reduction: 8)
        #expect(tier.store(try Self.entry(fingerprint: "old"), for: key))
        tier.refresh(Self.source, fingerprint: "new", expiresAt: nil, isStorable: true)
        #expect(tier.totals.count == 0, "the entry of the old bytes went with the refresh")
        #expect(!tier.store(try Self.entry(fingerprint: "old"), for: key), "a late decode of the old bytes")
        #expect(tier.lookup(Self.source, requiredScale: { _ in 0.1 }, now: Date()) == nil)
        #expect(tier.store(try Self.entry(fingerprint: "new"), for: key))
        #expect(tier.lookup(Self.source, requiredScale: { _ in 0.1 }, now: Date(), fingerprint: "new")?.fingerprint == "new")
        #expect(tier.lookup(Self.source, requiredScale: { _ in 0.1 }, now: Date(), fingerprint: "other") == nil)
    }

    @Test("a tier that keeps nothing indexes no source; a tier's index of sources loaded but never kept is pruned")
    func indexIsBounded() throws {
        let off = DecodedOriginals(byteLimit: 0, entryFraction: 0.25, indexLimit: 10)
        let on = DecodedOriginals(byteLimit: 1 << 20, entryFraction: 1, indexLimit: 10)
        let kept = DecodedOriginals.Key(source: Self.source, reduction: 8)
        #expect(on.store(try Self.entry(fingerprint: "a"), for: kept))
        for index in 0..<10 {
            let source = DecodedOriginals.SourceKey(original: CacheKey.original("https://example.com/\(index)"), handling: .convertToSRGB)
            off.refresh(source, fingerprint: "f", expiresAt: nil, isStorable: true)
            on.refresh(source, fingerprint: "f", expiresAt: nil, isStorable: true)
        }
        #expect(off.indexedSourceCount == 0)
        #expect(on.indexedSourceCount == 1, "only the source with an entry stays")
        #expect(on.lookup(Self.source, requiredScale: { _ in 0.1 }, now: Date())?.fingerprint == "a")
    }

    @Test("an entry fraction with an unbounded tier does not trap")
    func unboundedTier() {
        let tier = DecodedOriginals(byteLimit: .max, entryFraction: 0.25)
        #expect(tier.maximumEntryBytes > 0 && tier.maximumEntryBytes <= Int.max / 2)
    }

    @Test("cache.remove and cache.removeAll empty the tier too")
    func removalsReachTheTier() async throws {
        try await withTestServer { server in
            server.set("/a.jpg", data: try Fixtures.jpeg(width: 800, height: 600, seed: 1), contentType: "image/jpeg")
            server.set("/b.jpg", data: try Fixtures.jpeg(width: 800, height: 600, seed: 2), contentType: "image/jpeg")
            var configuration = ImagePipeline.Configuration(memoryCache: nil, connectivity: .alwaysReachable)
            configuration.decodedOriginalsBytes = 32 << 20
            let pipeline = ImagePipeline(configuration: configuration)
            let a = ImageRequest(url: server.url(for: "/a.jpg"), maximumPixelSize: 90)
            _ = try await pipeline.image(for: a)
            _ = try await pipeline.image(for: ImageRequest(url: server.url(for: "/b.jpg"), maximumPixelSize: 90))
            #expect(pipeline.statistics().decodedOriginalsCount == 2)
            pipeline.cache.remove(a)
            #expect(pipeline.statistics().decodedOriginalsCount == 1)
            _ = try await pipeline.image(for: ImageRequest(url: server.url(for: "/a.jpg"), maximumPixelSize: 80))
            #expect(pipeline.statistics().decodeCount == 3, "decoded again after the removal")
            pipeline.cache.removeAll()
            #expect(pipeline.statistics().decodedOriginalsCount == 0)
        }
    }

    @Test("a request with a byte limit and one without, together: each gets its own answer")
    func limitsAreNotShared() async throws {
        try await PipelineFixture.with { fixture in
            let data = try Fixtures.jpeg(width: 64, height: 48, seed: 2)
            fixture.server.set("/photo.jpg", data: data, contentType: "image/jpeg")
            let url = fixture.server.url(for: "/photo.jpg")
            let pipeline = try fixture.makePipeline()
            var limited = ImageRequest(url: url, maximumPixelSize: 32)
            limited.maximumSourceByteCount = 100
            let refused = Task { () async -> Result<ImageResponse, ImagePipeline.Error> in
                do throws(ImagePipeline.Error) {
                    return .success(try await pipeline.image(for: limited))
                } catch {
                    return .failure(error)
                }
            }
            async let served = pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 32))
            #expect(try await served.container.pixelSize.width == 32)
            await #expect(throws: ImagePipeline.Error.sourceTooLarge(url, .bytes(limit: 100, actual: data.count))) {
                try await refused.value.get()
            }
        }
    }

    @Test("a request refused by its own pixel limit leaves the stored original alone")
    func ownLimitsKeepTheOriginal() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG(width: 64, height: 48)
            let pipeline = try fixture.makePipeline()
            _ = try await pipeline.image(for: ImageRequest(url: url))
            await pipeline.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 1)
            var request = ImageRequest(url: url, maximumPixelSize: 32)
            request.maximumSourcePixelCount = 1_000
            await #expect(throws: ImagePipeline.Error.sourceTooLarge(url, .pixels(limit: 1_000, width: 64, height: 48))) {
                try await pipeline.image(for: request)
            }
            await pipeline.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 1, "the original others decode is still on disk")
        }
    }
}
