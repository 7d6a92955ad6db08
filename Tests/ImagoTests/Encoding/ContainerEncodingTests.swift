import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// `ImageContainer.encoded(as:quality:)`: the documented way to save a loaded image.
@Suite struct ContainerEncodingTests {
    static func container(transparent: Bool) throws -> ImageContainer {
        try ImageContainer(bitmap: Fixtures.picture(width: 90, height: 60, seed: 3, transparent: transparent), format: .png)
    }

    @Test(arguments: [
        (ImageFormat.png, Double?.none), (.jpeg, nil), (.jpeg, 0.1), (.jpeg, 1.0), (.webp, nil), (.webp, 0.1), (.webp, 1.0),
    ])
    func encodedBytesDecodeBackToTheSameSize(_ format: ImageFormat, _ quality: Double?) throws {
        let data = try Self.container(transparent: false).encoded(as: format, quality: quality)
        #expect(ImageFormat.sniff(data) == format)
        let decoded = try ImageDecoder.decode(data)
        #expect(decoded.pixelSize == PixelSize(width: 90, height: 60))
    }

    @Test func pngKeepsTransparencyAndJPEGQualityChangesTheSize() throws {
        let transparent = try Self.container(transparent: true)
        let png = try ImageDecoder.decode(try transparent.encoded(as: .png)).bitmap()
        #expect(png.alphaMode != .opaque)
        #expect(png[0, 0].a < 255)
        let opaque = try Self.container(transparent: false)
        #expect(try opaque.encoded(as: .jpeg, quality: 0.1).count < opaque.encoded(as: .jpeg, quality: 1).count)
    }

    @Test func webPKeepsTransparencyLosslessKeepsEveryPixelAndQualityChangesTheSize() throws {
        let transparent = try Self.container(transparent: true)
        let original = try transparent.bitmap()
        let lossless = try ImageDecoder.decode(try transparent.encoded(as: .webp, quality: 1)).bitmap()
        #expect(lossless.alphaMode != .opaque)
        #expect(lossless.width == original.width && lossless.height == original.height)
        // Lossless keeps every visible pixel (a fully transparent one may carry any colour).
        var changed = 0
        for y in 0..<original.height {
            for x in 0..<original.width where original[x, y].a > 0 && lossless[x, y] != original[x, y] { changed += 1 }
        }
        #expect(changed == 0)
        let lossy = try ImageDecoder.decode(try transparent.encoded(as: .webp)).bitmap()
        #expect(lossy[0, 0].a < 255)
        let opaque = try Self.container(transparent: false)
        #expect(try opaque.encoded(as: .webp, quality: 0.1).count < opaque.encoded(as: .webp, quality: 0.9).count)
    }

    @Test func webPRefusesABitmapPastItsSizeLimitSayingSo() throws {
        let error = #expect(throws: ImagePipeline.Error.self) { try WebPEncoder().encode(Bitmap(width: 16_384, height: 1)) }
        #expect(error?.code == "encoding_failed")
        #expect(error?.description.contains("16,383") == true)
    }

    @Test(arguments: [(ImageFormat.jpeg, -0.1), (.jpeg, 1.5), (.jpeg, Double.nan), (.jpeg, Double.infinity), (.webp, -0.1), (.webp, 1.5), (.avif, -0.1), (.avif, 1.5), (.jxl, -0.1), (.jxl, 1.5)])
    func qualityOutsideZeroToOneIsAnError(_ format: ImageFormat, _ quality: Double) throws {
        #expect(throws: ImagePipeline.Error.self) { try Self.container(transparent: false).encoded(as: format, quality: quality) }
    }

    @Test func aFormatWithoutAnEncoderSaysWhatToUseInstead() throws {
        let error = #expect(throws: ImagePipeline.Error.self) { try Self.container(transparent: false).encoded(as: .gif) }
        #expect(error?.code == "encoding_failed")
        #expect(error?.description.contains("PNG, JPEG, WebP, AVIF or JPEG XL") == true)
    }
}
