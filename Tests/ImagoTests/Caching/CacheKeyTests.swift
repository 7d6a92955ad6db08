import Foundation
@testable import Imago
import ImagoTestSupport
import Testing

@Suite("Cache keys are unambiguous")
struct CacheKeyTests {
    private static let base = URL(string: "https://cdn.example.com/a.jpg")!

    /// Pairs of requests that must never share a memory or disk entry.
    static let distinctPairs: [(ImageRequest, ImageRequest)] = [
        // A URL whose fragment spells out a processing step, and the processed request.
        (ImageRequest(url: URL(string: "https://cdn.example.com/a.jpg#thumbnail(256)")!),
         ImageRequest(url: base, maximumPixelSize: 256)),
        // An override that spells out a processed key, and the processed request.
        (ImageRequest(url: URL(string: "https://other.example.com/x.jpg")!, cacheKeyOverride: "https://cdn.example.com/a.jpg#thumbnail(256)"),
         ImageRequest(url: base, maximumPixelSize: 256)),
        // An override that copies the new encoding byte for byte, and the processed request.
        (ImageRequest(url: URL(string: "https://other.example.com/x.jpg")!,
                      cacheKeyOverride: ImageRequest(url: base, maximumPixelSize: 256).processedKey.rawValue),
         ImageRequest(url: base, maximumPixelSize: 256)),
        // Identifiers that join to the same text.
        (ImageRequest(url: base, processors: [NamedProcessor("a|b")]),
         ImageRequest(url: base, processors: [NamedProcessor("a"), NamedProcessor("b")])),
        (ImageRequest(url: base, processors: [NamedProcessor("1:a")]),
         ImageRequest(url: base, processors: [NamedProcessor("1:a"), NamedProcessor("")])),
    ]

    @Test("Requests that make different images have different keys and entry names", arguments: 0..<distinctPairs.count)
    func distinct(index: Int) {
        let (lhs, rhs) = Self.distinctPairs[index]
        #expect(lhs.processedKey != rhs.processedKey)
        #expect(DiskCache.entryName(for: lhs.processedKey) != DiskCache.entryName(for: rhs.processedKey))
    }

    @Test("Equal requests still share their keys; an override replaces the URL in them")
    func stable() {
        #expect(ImageRequest(url: Self.base).originalKey == CacheKey(Self.base.absoluteString))
        #expect(
            ImageRequest(url: Self.base, maximumPixelSize: 64).processedKey
                == ImageRequest(url: Self.base, maximumPixelSize: 64).processedKey)
        let overridden = ImageRequest(url: URL(string: "https://x.example/t?token=1")!, cacheKeyOverride: "photo-1")
        #expect(overridden.originalKey == CacheKey("photo-1"))
        #expect(
            ImageRequest(url: URL(string: "https://x.example/t?token=2")!, maximumPixelSize: 8, cacheKeyOverride: "photo-1")
                .processedKey == ImageRequest(url: Self.base, maximumPixelSize: 8, cacheKeyOverride: "photo-1").processedKey)
        #expect(ImageRequest(url: Self.base, maximumPixelSize: 64).originalKey == ImageRequest(url: Self.base).originalKey)
    }

    @Test("An unprocessed request for a URL with a processing fragment gets the full image, not the cached thumbnail")
    func fragmentDoesNotHitThumbnail() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG(width: 300, height: 200)
            var configuration = try fixture.configuration()
            configuration.storesProcessedImagesOnDisk = true
            let pipeline = ImagePipeline(configuration: configuration)
            let thumbnail = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 30))
            #expect(thumbnail.container.pixelSize == PixelSize(width: 30, height: 20))
            await pipeline.waitForDiskWrites()
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            components.fragment = "thumbnail(30)"
            let fragment = try #require(components.url)
            let full = try await pipeline.image(for: ImageRequest(url: fragment))
            #expect(full.container.pixelSize == PixelSize(width: 300, height: 200))
            configuration.memoryCache = MemoryCache()
            let fresh = try await ImagePipeline(configuration: configuration).image(for: ImageRequest(url: fragment))
            #expect(fresh.container.pixelSize == PixelSize(width: 300, height: 200))
        }
    }
}

/// A processor that does nothing and reports the identifier it is given.
private struct NamedProcessor: ImageProcessing {
    let identifier: String
    init(_ identifier: String) { self.identifier = identifier }
    func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer { container }
}

@Suite("Entry header parser")
struct EntryHeaderParseTests {
    @Test("Round trip, truncation and damage are values or thrown errors, never traps")
    func parse() throws {
        let header = EntryHeader(
            key: "k", payloadLength: 3, payloadChecksum: 7, createdAt: Date(timeIntervalSince1970: 1),
            expiresAt: nil, metadata: ["a": "b"])
        let bytes = header.encoded()
        let parsed = try EntryHeader.parse(bytes + [1, 2, 3])
        #expect(parsed.header == header && parsed.length == bytes.count)
        #expect(throws: EntryHeader.ParseError.truncated(length: bytes.count)) { try EntryHeader.parse(Array(bytes.dropLast())) }
        #expect(throws: EntryHeader.ParseError.invalid) { try EntryHeader.parse([]) }
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0x5A
            _ = try? EntryHeader.parse(damaged)
        }
    }
}
