import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// Kept profiles travel with the pixels: through processing, and back into JPEG, PNG and WebP
/// files, which then decode to the same colours as the source; converted pixels are written
/// without a profile. And the transforms are built once per profile.
@Suite("Colour profiles: kept, written back, and transforms reused")
struct ColorProfileKeepTests {
    @Test(arguments: [ImageFormat.png, .jpeg, .webp])
    func aKeptProfileIsWrittenBackAndMeansTheSameColours(_ format: ImageFormat) throws {
        // ProPhoto: its pixels read as sRGB are ΔE 8.7 away, far beyond what JPEG's loss adds.
        let fixture = try #require(ColorFixture.decoded.first { $0.file == "prophoto.png" })
        let kept = try ImageDecoder.decode(fixture.data(), colorProfileHandling: .keep)
        let profile = try #require(kept.pixelColorProfile)
        // Lossless WebP (quality 1) and a high JPEG quality, so the comparison is about colour.
        let encoded = try kept.encoded(as: format, quality: format == .png ? nil : format == .webp ? 1 : 0.95)
        let again = try ImageDecoder.decode(encoded, colorProfileHandling: .keep)
        #expect(again.colorProfile?.data == profile.data, "\(format): the profile was not written back")
        let converted = try ImageDecoder.decode(encoded)
        let deltaE = ColorDifference.meanCIEDE2000(try converted.bitmap(), try fixture.referenceBitmap())
        #expect(deltaE < (format == .jpeg ? 3 : 1.5), "\(format): ΔE \(deltaE) from the reference after a round trip")
    }

    @Test(arguments: [ImageFormat.png, .jpeg, .webp])
    func convertedPixelsAreWrittenWithoutAProfile(_ format: ImageFormat) throws {
        let converted = try ImageDecoder.decode(ColorFixture.data("adobergb.png"))
        #expect(converted.colorProfile != nil && converted.pixelColorProfile == nil)
        let encoded = try converted.encoded(as: format)
        let reading = EmbeddedColor.read(encoded, format: format, maximumProfileSize: 1 << 20)
        // No profile; PNG's encoder declares sRGB with its chunk.
        #expect((reading.color == nil || reading.color == .sRGB) && reading.problems.isEmpty, "\(format): \(String(describing: reading.color))")
    }

    @Test func aWebPWithAlphaKeepsItsAlphaFlagWhenAProfileIsAdded() throws {
        var container = try ImageDecoder.decode(ColorFixture.data("displayp3.png"), colorProfileHandling: .keep)
        var bitmap = try container.bitmap()
        bitmap.alphaMode = .straight
        bitmap.pixels[3] = 10
        let profile = container.colorProfile
        container = try ImageContainer(bitmap: bitmap, format: .png)
        container.colorProfile = profile
        container.colorProfileHandling = .keep
        for quality in [0.8, 1.0] {
            let decoded = try ImageDecoder.decode(try container.encoded(as: .webp, quality: quality), colorProfileHandling: .keep)
            #expect(try decoded.bitmap().pixels[3] < 40, "quality \(quality): alpha lost")
            #expect(decoded.colorProfile == profile)
        }
    }

    /// `ColorProfile.embedded(in:format:)` is public: bytes that are not a file of the format, or
    /// are cut short, are an error that says so, never a trap.
    @Test(arguments: [
        (ImageFormat.jpeg, [UInt8]("not a jpeg".utf8)),
        (.png, [0x89, 0x50, 0x4E, 0x47]),
        (.webp, Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8X\u{0A}\u{0}".utf8)),
        (.webp, Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 \u{0}\u{0}\u{0}\u{0}".utf8)),
    ])
    func embeddingIntoBytesOfAnotherKindIsAnError(_ format: ImageFormat, _ bytes: [UInt8]) throws {
        let profile = try ColorProfile(iccData: ColorProfileReaderTests.profile(of: "adobergb.jpg"))
        #expect(throws: ImagePipeline.Error.self, "\(format)") { try profile.embedded(in: Data(bytes), format: format) }
        #expect(try profile.embedded(in: Data(bytes), format: .gif) == Data(bytes))  // a format with no profile: unchanged
    }

    /// A CMYK JPEG whose profile is for RGB keeps the browsers' formula, with a repair.
    @Test func aCMYKJPEGWithAnRGBProfileUsesTheFormula() throws {
        let plain = try Fixture.data("jpeg-cmyk.jpg")
        let tagged = try ColorProfileEmbedder.embed(ColorProfileReaderTests.profile(of: "adobergb.jpg"), in: plain, format: .jpeg)
        let decoded = try ImageDecoder.decode(tagged)
        #expect(decoded.colorProfile == nil)
        #expect(decoded.repairs.map(\.description).contains { $0.contains("the image's are CMYK") }, "\(decoded.repairs)")
        #expect(try decoded.bitmap() == ImageDecoder.decode(plain).bitmap())
    }

    @Test func processingKeepsTheProfile() throws {
        let kept = try ImageDecoder.decode(ColorFixture.data("displayp3.png"), colorProfileHandling: .keep)
        let resized = try ImageProcessors.Resize(size: PixelSize(width: 40, height: 30), contentMode: .aspectFit).process(kept)
        #expect(resized.colorProfile == kept.colorProfile && resized.colorProfileHandling == .keep)
    }

    @Test func aThumbnailIsConvertedAtItsReducedSize() throws {
        // Shrink-on-load first (DCT scaling for JPEG, box reduction for PNG), then the transform:
        // the result still matches the reference reduced the same way.
        for file in ["adobergb.jpg", "adobergb.png", "cmyk.jpg"] {
            let fixture = try #require(ColorFixture.decoded.first { $0.file == file })
            let thumbnail = try ImageDecoder.decode(fixture.data(), maximumPixelSize: 48)
            #expect(thumbnail.pixelSize.width < fixture.width, "\(file) was not reduced on load")
            let reference = Resampler.resample(try fixture.referenceBitmap(), to: thumbnail.pixelSize)
            let bitmap = Resampler.resample(try thumbnail.bitmap(), to: thumbnail.pixelSize)
            let deltaE = ColorDifference.meanCIEDE2000(bitmap, reference)
            #expect(deltaE < 2.5, "\(file): ΔE \(deltaE)")
            #expect(thumbnail.colorProfile != nil)
        }
    }

    @Test func aTransformIsBuiltOncePerProfileAndTheCacheIsBounded() throws {
        let cache = ColorTransformCache(capacity: 2)
        let profiles = try ["adobergb.jpg", "prophoto.jpg", "displayp3.jpg"].map { try ColorProfileReaderTests.profile(of: $0) }
        for _ in 0..<5 { _ = try cache.transform(profile: profiles[0], layout: .rgba8).get() }
        #expect(cache.buildCount == 1)
        _ = try cache.transform(profile: profiles[1], layout: .rgba8).get()
        _ = try cache.transform(profile: profiles[0], layout: .rgba8).get()  // most recent now
        _ = try cache.transform(profile: profiles[2], layout: .rgba8).get()  // drops profiles[1]
        #expect(cache.count == 2 && cache.buildCount == 3)
        _ = try cache.transform(profile: profiles[0], layout: .rgba8).get()
        #expect(cache.buildCount == 3)
        _ = try cache.transform(profile: profiles[1], layout: .rgba8).get()
        #expect(cache.buildCount == 4)
        // A refused profile is remembered too.
        let garbage = Data(repeating: 7, count: 300)
        if case .success = cache.transform(profile: garbage, layout: .rgba8) { Issue.record("garbage built a transform") }
        if case .success = cache.transform(profile: garbage, layout: .rgba8) { Issue.record("garbage built a transform") }
        #expect(cache.buildCount == 5)
    }

    @Test func aKeepRequestIsCachedApartFromAConvertedOne() {
        let url = URL(string: "https://example.com/p3.jpg")!
        let converted = ImageRequest(url: url)
        let kept = ImageRequest(url: url, colorProfileHandling: .keep)
        #expect(converted.processedKey != kept.processedKey)
        #expect(converted.originalKey == kept.originalKey)  // the same bytes on disk
        var changed = converted
        changed.colorProfileHandling = .keep
        #expect(changed.processedKey == kept.processedKey)
    }
}
