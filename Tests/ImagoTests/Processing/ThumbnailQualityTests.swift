import Foundation
import Testing

@testable import Imago

/// Imago's thumbnails (shrink-on-load, box reduction, Lanczos-3) against Pillow's `thumbnail()`
/// (Lanczos, no draft) of the same files, made once by Fixtures/make-thumbnail-references.py.
@Suite struct ThumbnailQualityTests {
    @Test(arguments: ["thumbnail-photo.jpg", "thumbnail-alpha.png", "thumbnail-photo.webp"])
    func withinThirtyTwoDecibelsOfPillow(_ file: String) throws {
        let data = try Fixture.data(file)
        let decoded = try ImageDecoder.decode(data, maximumPixelSize: 256)
        let thumbnail = try ThumbnailProcessor(maximumPixelSize: 256).process(decoded).bitmap()
        let referenceFile = file.replacingOccurrences(of: ".", with: "-") + ".pillow256.png"
        let reference = try ImageDecoder.decode(try Fixture.data(referenceFile)).bitmap()
        try #require(thumbnail.width == reference.width && thumbnail.height == reference.height,
            "\(thumbnail.width)x\(thumbnail.height) vs Pillow's \(reference.width)x\(reference.height)")
        let psnr = peakSignalToNoise(thumbnail, reference)
        #expect(psnr >= 32, "\(file): \(psnr) dB")
    }

    /// The alpha photograph re-encoded as Adam7: reduced pass by pass, still within 32 dB of
    /// Pillow's thumbnail of the same pixels.
    @Test func interlacedPNGWithinThirtyTwoDecibelsOfPillow() async throws {
        try await offThePool {
            let source = try ImageDecoder.decode(try Fixture.data("thumbnail-alpha.png")).bitmap()
            var builder = PNGBuilder(source)
            builder.interlaced = true
            let decoded = try ImageDecoder.decode(builder.data, maximumPixelSize: 256)
            let thumbnail = try ThumbnailProcessor(maximumPixelSize: 256).process(decoded).bitmap()
            let reference = try ImageDecoder.decode(try Fixture.data("thumbnail-alpha-png.pillow256.png")).bitmap()
            try #require(thumbnail.width == reference.width && thumbnail.height == reference.height)
            let psnr = peakSignalToNoise(thumbnail, reference)
            #expect(psnr >= 32, "interlaced: \(psnr) dB")
        }
    }
}
