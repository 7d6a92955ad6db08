import Foundation
import Testing

@testable import Imago

/// Encoders round-trip through the decoders: PNG exactly, JPEG within a few levels.
@Suite struct EncoderTests {
    @Test(arguments: [false, true])
    func pngRoundTripIsExact(_ alpha: Bool) throws {
        let original = gradientBitmap(width: 37, height: 23, alpha: alpha)
        let data = try PNGEncoder().encode(original)
        #expect(ImageFormat.sniff(data) == .png)
        let decoded = try ImageDecoder.decode(data).image
        #expect(decoded == original)
    }

    @Test func pngStoresPremultipliedPixelsStraight() throws {
        let premultiplied = Bitmap(width: 1, height: 1, alphaMode: .premultiplied, pixels: [100, 50, 0, 128])
        let decoded = try ImageDecoder.decode(try PNGEncoder().encode(premultiplied)).image
        #expect(decoded[0, 0] == RGBA(199, 100, 0, 128))
        #expect(decoded.alphaMode == .straight)
    }

    /// Gradients survive quality 90 within 6 levels per channel; quality changes the size.
    @Test func jpegRoundTripIsClose() throws {
        let original = gradientBitmap(width: 64, height: 48)
        let data = try JPEGEncoder(quality: 90).encode(original)
        #expect(ImageFormat.sniff(data) == .jpeg)
        let decoded = try ImageDecoder.decode(data).image
        #expect(decoded.width == 64 && decoded.height == 48 && decoded.alphaMode == .opaque)
        #expect(largestDifference(decoded, original.pixels).value <= 6)
        #expect(try JPEGEncoder(quality: 20).encode(original).count < data.count)
    }

    /// JPEG has no alpha: transparent pixels come out white, half-transparent ones half-way.
    @Test(arguments: [Bitmap.AlphaMode.straight, .premultiplied])
    func jpegCompositesAlphaOntoWhite(_ mode: Bitmap.AlphaMode) throws {
        let pixels: [UInt8] = mode == .straight ? [0, 0, 0, 0, 0, 0, 0, 128] : [0, 0, 0, 0, 0, 0, 0, 128]
        var image = Bitmap(width: 16, height: 16, alphaMode: mode, pixels: [UInt8](repeating: 0, count: 16 * 16 * 4))
        for y in 0..<16 { for x in 0..<16 { image[x, y] = x < 8 ? RGBA(pixels[0], pixels[1], pixels[2], pixels[3]) : RGBA(0, 0, 0, 128) } }
        let decoded = try ImageDecoder.decode(try JPEGEncoder().encode(image)).image
        #expect(Int(decoded[2, 8].r) >= 250)  // transparent → white
        #expect(abs(Int(decoded[13, 8].r) - 127) <= 4)  // black at half alpha → mid grey
    }

    @Test func emptyBitmapIsRefused() {
        let empty = Bitmap(width: 0, height: 0, alphaMode: .opaque, pixels: [])
        #expect(throws: ImagePipeline.Error.self) { try PNGEncoder().encode(empty) }
        #expect(throws: ImagePipeline.Error.self) { try JPEGEncoder().encode(empty) }
    }

    @Test func qualityIsClamped() {
        #expect(JPEGEncoder(quality: 0).quality == 1)
        #expect(JPEGEncoder(quality: 250).quality == 100)
        #expect(JPEGEncoder().quality == 85)
    }
}
