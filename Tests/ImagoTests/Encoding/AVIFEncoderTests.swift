import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// AVIF output through libavif's encoder: decoded back by the AVIF decoder at the right size and
/// close to the original, transparency and a kept colour profile included.
@Suite struct AVIFEncoderTests {
    @Test func isAvailableWhereLibavifHasAnEncoder() {
        // Debian's libavif15 depends on aom, rav1e and SVT-AV1: never a skipped branch here.
        #expect(AVIFEncoder.isAvailable)
    }

    @Test(arguments: [(300, 200), (1, 1), (17, 33)])
    func roundTripsAtTheRightSize(width: Int, height: Int) throws {
        let original = Fixtures.picture(width: width, height: height, seed: 5)
        let data = try AVIFEncoder(quality: 0.9).encode(original)
        #expect(ImageFormat.sniff(data) == .avif)
        let decoded = try ImageDecoder.decode(data).bitmap()
        #expect(decoded.width == width && decoded.height == height && decoded.alphaMode == .opaque)
        if width >= 16 {
            let psnr = ColorDifference.peakSignalToNoise(decoded, original)
            #expect(psnr > 30, "\(psnr) dB")
        }
    }

    @Test func keepsTransparency() throws {
        let original = Fixtures.picture(width: 64, height: 48, seed: 2, transparent: true)
        let decoded = try ImageDecoder.decode(try AVIFEncoder(quality: 1).encode(original)).bitmap()
        #expect(decoded.alphaMode != .opaque)
        #expect(decoded.width == 64 && decoded.height == 48)
        let alphaError = zip(decoded.allPixels, original.allPixels).map { abs(Int($0.a) - Int($1.a)) }.max() ?? 0
        #expect(alphaError <= 2, "alpha is nearly lossless at quality 1: \(alphaError)")
    }

    @Test func qualityTradesSizeAndIsClamped() throws {
        let original = Fixtures.picture(width: 160, height: 120, seed: 9)
        let low = try AVIFEncoder(quality: 0.2).encode(original)
        let high = try AVIFEncoder(quality: 0.95).encode(original)
        #expect(low.count < high.count)
        #expect(AVIFEncoder(quality: 3).quality == 1 && AVIFEncoder(quality: .nan).quality == ImageContainer.defaultEncodingQuality)
        #expect(AVIFEncoder().quality == ImageContainer.defaultEncodingQuality, "one default quality for every lossy format")
        #expect(AVIFEncoder(speed: 99).speed == 10 && AVIFEncoder().speed == 9)
    }

    @Test func containersEncodeAVIFWithTheirKeptProfile() throws {
        let container = try ImageContainer(bitmap: Fixtures.picture(width: 40, height: 30), format: .png)
        let data = try container.encoded(as: .avif, quality: 0.7)
        #expect(try ImageDecoder.decode(data).bitmap().width == 40)
        #expect(throws: ImagePipeline.Error.self) { try container.encoded(as: .avif, quality: 1.5) }
        #if os(Linux)
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/colour")
        let adobe = try ImageDecoder.decode(
            Data(contentsOf: folder.appendingPathComponent("adobergb.jpg")), colorProfileHandling: .keep)
        let profile = try #require(adobe.pixelColorProfile)
        let kept = try adobe.encoded(as: .avif, quality: 0.9)
        let details = try #require(ImageHeader.details(kept))
        #expect(details.colorProfile?.name == profile.name, "\(String(describing: details.colorProfile))")
        #endif
    }

    @Test func refusesEmptyAndOversizedBitmaps() {
        #expect(throws: ImagePipeline.Error.self) { try AVIFEncoder().encode(Bitmap(width: 0, height: 0)) }
    }
}

