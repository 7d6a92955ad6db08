#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// Embedded thumbnails (imgproxy's `enforce_thumbnail`): a HEIF or AVIF file's largest thumbnail
/// item decoded instead of its primary image when asked, through the decoders and the pipeline.
/// The fixtures (`Fixtures/thumbnail/`) are 96x64 with a 24x16 thumbnail.
@Suite("decoding.embeddedThumbnail")
struct EmbeddedThumbnailTests {
    static let files = ["thumbnail/thumbnail.heic", "thumbnail/thumbnail.avif"]

    static func decoded(_ data: Data, prefersThumbnail: Bool) throws -> ImageContainer {
        let format = try #require(ImageFormat.sniff(data))
        var context = DecodingContext(format: format)
        context.prefersEmbeddedThumbnail = prefersThumbnail
        return try ImageDecoder().decode(data, context: context)
    }

    @Test("with the choice the thumbnail decodes, without it the primary image", arguments: files)
    func decodesTheThumbnail(_ file: String) throws {
        let data = try Fixture.data(file)
        let main = try Self.decoded(data, prefersThumbnail: false)
        let thumbnail = try Self.decoded(data, prefersThumbnail: true)
        #expect(main.pixelSize == PixelSize(width: 96, height: 64))
        #expect(thumbnail.pixelSize == PixelSize(width: 24, height: 16))
        #expect(thumbnail.format == main.format)
        // The same picture: red grows to the right, green downwards.
        let bitmap = try thumbnail.bitmap()
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(bitmap.pixels[(y * 24 + x) * 4..<(y * 24 + x) * 4 + 4]) }
        #expect(pixel(22, 8)[0] > pixel(1, 8)[0] + 150)
        #expect(pixel(12, 14)[1] > pixel(12, 1)[1] + 150)
    }

    @Test("a file without a thumbnail decodes its primary image either way", arguments: ["heif-lossy", "avif-lossy"])
    func noThumbnail(_ name: String) throws {
        let fixture = Fixture.named(name)
        let decoded = try Self.decoded(try fixture.data(), prefersThumbnail: true)
        #expect(decoded.pixelSize == PixelSize(width: fixture.width, height: fixture.height))
    }

    @Test("the decoding limits hold the image decoded: the thumbnail, or the primary image", arguments: files)
    func limits(_ file: String) throws {
        let data = try Fixture.data(file)
        var limits = DecodingLimits()
        limits.maximumPixelCount = 24 * 16
        var context = DecodingContext(format: try #require(ImageFormat.sniff(data)), limits: limits)
        #expect(throws: ImagePipeline.Error.self) { try ImageDecoder().decode(data, context: context) }
        context.prefersEmbeddedThumbnail = true
        #expect(try ImageDecoder().decode(data, context: context).pixelSize == PixelSize(width: 24, height: 16))
        context.limits.maximumPixelCount = 24 * 16 - 1
        #expect(throws: ImagePipeline.Error.self) { try ImageDecoder().decode(data, context: context) }
        // The primary image is still a source, held to the source limits.
        context.limits = DecodingLimits()
        context.limits.maximumSourcePixelCount = 96 * 64 - 1
        #expect(throws: ImagePipeline.Error.self) { try ImageDecoder().decode(data, context: context) }
        // Without a thumbnail, the primary image decoded is held to the decode limits.
        let plain = try Fixture.named("heif-lossy").data()
        var plainContext = DecodingContext(format: .heif, limits: DecodingLimits())
        plainContext.prefersEmbeddedThumbnail = true
        plainContext.limits.maximumPixelCount = 16
        #expect(throws: ImagePipeline.Error.self) { try ImageDecoder().decode(plain, context: plainContext) }
    }

    @Test("a thumbnail with a colour of its own is read in it, not in the primary image's")
    func thumbnailColor() throws {
        // Primary: nclx 1/13/6 (sRGB); thumbnail: nclx 12/13/6 (Display P3), see the README.
        let data = try Fixture.data("thumbnail/thumbnail-p3.heic")
        var context = DecodingContext(format: .heif, colorProfileHandling: .keep)
        let main = try ImageDecoder().decode(data, context: context)
        context.prefersEmbeddedThumbnail = true
        let thumbnail = try ImageDecoder().decode(data, context: context)
        #expect(main.pixelSize == PixelSize(width: 96, height: 64) && main.colorProfile == nil)
        #expect(thumbnail.pixelSize == PixelSize(width: 24, height: 16))
        #expect(thumbnail.colorProfile?.name?.contains("CICP 12/13/6") == true, "\(String(describing: thumbnail.colorProfile))")
    }

    @Test("the boxes tell whether a file lists a thumbnail, before any decode")
    func thumbnailsCounted() throws {
        for file in Self.files {
            #expect(try ISOBMFFHeader.parse(try Fixture.data(file)).thumbnailCount == 1)
        }
        for name in ["heif-lossy", "avif-lossy"] {
            #expect(try ISOBMFFHeader.parse(try Fixture.named(name).data()).thumbnailCount == 0)
        }
    }

    @Test("a decoded original of a file without a thumbnail is reduced as without the choice; with one, it is the thumbnail")
    func decodedOriginalSize() async throws {
        try await withTestServer { server in
            server.set("/plain.heif", data: try Fixture.named("heif-lossy").data(), contentType: "image/heif")
            server.set("/t.heic", data: try Fixture.data("thumbnail/thumbnail.heic"), contentType: "image/heic")
            let pipeline = DecodedOriginalsTests.pipeline()
            let quarter = DecodedOriginalsTests.ScaledProcessor(scale: 0.25)
            for path in ["/plain.heif", "/t.heic"] {
                var request = ImageRequest(url: server.url(for: path), processors: [quarter])
                request.prefersEmbeddedThumbnail = true
                _ = try await pipeline.image(for: request)
            }
            let seen = quarter.seen.sizes.withLock { $0 }
            // 32x24 without a thumbnail: decoded and kept at 1/4, not whole.
            #expect(seen.first?.pixels == PixelSize(width: 8, height: 6))
            #expect(seen.first?.source == PixelSize(width: 32, height: 24))
            #expect(seen.last?.pixels == PixelSize(width: 24, height: 16))
            #expect(seen.count == 2)
        }
    }

    @Test("the request's choice reaches the decoder, is in the cache key, and keeps its own decoded original")
    func throughThePipeline() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set("/t.heic", data: try Fixture.data("thumbnail/thumbnail.heic"), contentType: "image/heic")
            let pipeline = try fixture.makePipeline()
            let url = fixture.server.url(for: "/t.heic")
            var main = ImageRequest(url: url)
            var thumbnail = main
            thumbnail.prefersEmbeddedThumbnail = true
            #expect(main.processedKey != thumbnail.processedKey && main.originalKey == thumbnail.originalKey)
            #expect(try await pipeline.image(for: main).container.pixelSize == PixelSize(width: 96, height: 64))
            #expect(try await pipeline.image(for: thumbnail).container.pixelSize == PixelSize(width: 24, height: 16))
            // Processed requests go through the decoded originals: one of each image.
            main.maximumPixelSize = 1_000
            thumbnail.maximumPixelSize = 1_000
            let processedMain = try await pipeline.image(for: main).container
            let processedThumbnail = try await pipeline.image(for: thumbnail).container
            #expect(processedMain.pixelSize == PixelSize(width: 96, height: 64))
            #expect(processedThumbnail.pixelSize == PixelSize(width: 24, height: 16))
            #expect(processedThumbnail.sourcePixelSize == PixelSize(width: 24, height: 16))
            // Asked again, in the other order: each from its own cache entry.
            #expect(try await pipeline.image(for: thumbnail).container.pixelSize == PixelSize(width: 24, height: 16))
            #expect(try await pipeline.image(for: main).container.pixelSize == PixelSize(width: 96, height: 64))
        }
    }
}
#endif
