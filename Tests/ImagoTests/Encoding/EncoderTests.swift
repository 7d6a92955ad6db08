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
        let decoded = try ImageDecoder.decode(data).bitmap()
        #expect(decoded == original)
    }

    @Test func pngStoresPremultipliedPixelsStraight() throws {
        let premultiplied = Bitmap(width: 1, height: 1, alphaMode: .premultiplied, pixels: [100, 50, 0, 128])
        let decoded = try ImageDecoder.decode(try PNGEncoder().encode(premultiplied)).bitmap()
        #expect(decoded[0, 0] == RGBA(199, 100, 0, 128))
        #expect(decoded.alphaMode == .straight)
    }

    /// Gradients survive quality 0.9 within 6 levels per channel; quality changes the size.
    @Test func jpegRoundTripIsClose() throws {
        let original = gradientBitmap(width: 64, height: 48)
        let data = try JPEGEncoder(quality: 0.9).encode(original)
        #expect(ImageFormat.sniff(data) == .jpeg)
        let decoded = try ImageDecoder.decode(data).bitmap()
        #expect(decoded.width == 64 && decoded.height == 48 && decoded.alphaMode == .opaque)
        #expect(largestDifference(decoded, original.pixels).value <= 6)
        #expect(try JPEGEncoder(quality: 0.2).encode(original).count < data.count)
    }

    /// JPEG has no alpha: transparent pixels come out white, and red at half alpha comes out as
    /// red half-way to white, whether the bitmap stores it straight or premultiplied.
    @Test(arguments: [
        (Bitmap.AlphaMode.straight, RGBA(200, 0, 0, 128)), (.premultiplied, RGBA(100, 0, 0, 128)),
    ])
    func jpegCompositesAlphaOntoWhite(_ mode: Bitmap.AlphaMode, _ halfRed: RGBA) throws {
        var image = Bitmap(width: 16, height: 16)
        image.alphaMode = mode
        for y in 0..<16 { for x in 8..<16 { image[x, y] = halfRed } }
        let decoded = try ImageDecoder.decode(try JPEGEncoder(quality: 0.95).encode(image)).bitmap()
        let white = decoded[2, 8], pink = decoded[13, 8]
        #expect(min(white.r, white.g, white.b) >= 252, "\(white)")
        // 200 * 128/255 + 255 * 127/255 = 227; green and blue 127.
        #expect(abs(Int(pink.r) - 227) <= 4 && abs(Int(pink.g) - 127) <= 4 && abs(Int(pink.b) - 127) <= 4, "\(pink)")
    }

    @Test func emptyBitmapIsRefused() {
        let empty = Bitmap(width: 0, height: 0, alphaMode: .opaque, pixels: [])
        #expect(throws: ImagePipeline.Error.self) { try PNGEncoder().encode(empty) }
        #expect(throws: ImagePipeline.Error.self) { try JPEGEncoder().encode(empty) }
    }

    @Test func qualityIsClamped() {
        #expect(JPEGEncoder(quality: -1).quality == 0)
        #expect(JPEGEncoder(quality: 2.5).quality == 1)
        #expect(JPEGEncoder(quality: .nan).quality == 0.85)
        #expect(JPEGEncoder().quality == 0.85)
        #expect(WebPEncoder(quality: 7).quality == 1)
        #expect(WebPEncoder().quality == 0.85)
    }

    #if os(Linux)
    /// libwebp's preset tunes the encoder before quality and effort: on a photograph at one
    /// quality `.drawing` and `.photo` write different files, both decodable; `.default` is what
    /// an encoder without a preset writes.
    @Test func webpPresetChangesTheBytes() throws {
        let photograph = try ImageDecoder.decode(try Fixture.data("thumbnail-photo.jpg")).bitmap()
        let drawing = try WebPEncoder(quality: 0.8, preset: .drawing).encode(photograph)
        let photo = try WebPEncoder(quality: 0.8, preset: .photo).encode(photograph)
        #expect(drawing != photo)
        for data in [drawing, photo] {
            let decoded = try ImageDecoder.decode(data).bitmap()
            #expect(decoded.width == photograph.width && decoded.height == photograph.height)
        }
        #expect(WebPEncoder().preset == .default)
        let small = gradientBitmap(width: 32, height: 24)
        #expect(try WebPEncoder(quality: 0.8, preset: .default).encode(small) == (try WebPEncoder(quality: 0.8).encode(small)))
    }
    #endif
}
