import Foundation
import Testing

@testable import Imago

/// With a target size, PNG streams rows into a box reducer and WebP decodes scaled: the full-size
/// image never exists, and the result equals reducing the full-size decode.
@Suite struct ShrinkOnLoadTests {
    /// A bitmap whose rows repeat one gradient row (quick to build in a debug build).
    static func stripes(width: Int, height: Int, alpha: Bool) -> Bitmap {
        let row = gradientBitmap(width: width, height: 1, alpha: alpha).pixels
        var pixels = [UInt8]()
        pixels.reserveCapacity(row.count * height)
        for y in 0..<height {
            pixels += row
            // A varying band so rows differ.
            let base = pixels.count - row.count
            pixels[base + (y % width) * 4] = UInt8(truncatingIfNeeded: y)
        }
        return Bitmap(width: width, height: height, alphaMode: alpha ? .straight : .opaque, pixels: pixels)
    }

    /// 6000x1000 to 256: the full image would be 24 MB; the decoder holds one row and the image
    /// reduced by 11 (546x91), about 0.25 MB.
    @Test func largePNGThumbnailNeverHoldsTheFullImage() async throws {
        try await offThePool {
            let png = try PNGEncoder().encode(Self.stripes(width: 6000, height: 1000, alpha: false))
            let context = DecodingContext(format: .png, maximumPixelSize: 256)
            let (container, workingSize) = try PNGDecoder().decodeMeasuringWork(png, context: context)
            let bitmap = try container.bitmap()
            #expect(bitmap.width == 546 && bitmap.height == 91)
            #expect(workingSize < 512 * 1024, "working size \(workingSize)")
            #expect(workingSize < 6000 * 1000 * 4 / 32)
        }
    }

    /// Streamed reduction equals reducing the full decode, alpha included, and a full decode
    /// (no target) holds the full image.
    @Test(arguments: [false, true])
    func streamedEqualsReducedFullDecode(_ alpha: Bool) throws {
        let png = try PNGEncoder().encode(gradientBitmap(width: 613, height: 407, alpha: alpha))
        let full = try PNGDecoder().decodeMeasuringWork(png, context: DecodingContext(format: .png))
        #expect(full.workingSize >= 613 * 407 * 4)
        let reduced = try PNGDecoder().decodeMeasuringWork(png, context: DecodingContext(format: .png, maximumPixelSize: 50))
        let expected = BoxReducer.reduce(try full.container.bitmap(), factor: 6)
        #expect(try reduced.container.bitmap() == expected)
        #expect(expected.width == 103 && expected.height == 68)
    }

    /// Every PNG fixture decodes to its reference through the row decoder (no target), and with
    /// a target to the reference reduced.
    @Test(arguments: Fixture.all.filter { $0.file.hasSuffix(".png") })
    func fixtureThroughRows(_ fixture: Fixture) throws {
        let data = try fixture.data()
        let full = try ImageDecoder.decode(data).bitmap()
        let reduced = try ImageDecoder.decode(data, maximumPixelSize: 4).bitmap()
        #expect(reduced == BoxReducer.reduce(full, factor: 4), "\(fixture.name)")
    }

    @Test(arguments: [
        (4000, 3000, 256, 512, 384), (4000, 3000, 1000, 2000, 1500), (4000, 3000, 1001, 4000, 3000), (3000, 4000, 256, 384, 512),
        (100, 100, 25, 50, 50), (100, 100, 26, 100, 100), (4000, 3000, nil, 4000, 3000),
    ] as [(Int, Int, Int?, Int, Int)])
    func webPScaledSize(_ width: Int, _ height: Int, _ target: Int?, _ scaledWidth: Int, _ scaledHeight: Int) {
        #expect(WebPDecoder.scaledSize(width: width, height: height, target: target)
            == PixelSize(width: scaledWidth, height: scaledHeight))
    }

    /// libwebp's scaled decode: the lossy and lossless fixtures at twice an 8-pixel target.
    @Test(arguments: ["webp-lossy", "webp-lossless", "webp-lossless-alpha", "webp-lossy-alpha"])
    func webPDecodesScaled(_ name: String) throws {
        let data = try Fixture.named(name).data()
        let full = try ImageDecoder.decode(data).bitmap()
        let scaled = try ImageDecoder.decode(data, maximumPixelSize: 8).bitmap()
        #expect(max(scaled.width, scaled.height) == 16)
        #expect(scaled.width * full.height == scaled.height * full.width)
    }

    /// Animated WebP and GIF keep every frame reduced.
    @Test(arguments: ["webp-animated", "gif-animated"])
    func animationFramesAreReduced(_ name: String) throws {
        let data = try Fixture.named(name).data()
        let full = try ImageDecoder.decode(data)
        let reduced = try ImageDecoder.decode(data, maximumPixelSize: 4)
        #expect(reduced.frames.count == full.frames.count && full.frames.count > 1)
        for (small, large) in zip(reduced.frames, full.frames) {
            let expected = BoxReducer.reduce(try large.bitmap(), factor: 4)
            let bitmap = try small.bitmap()
            #expect(bitmap.width == expected.width && bitmap.height == expected.height)
            #expect(largestDifference(bitmap, expected.pixels).value <= 1)
        }
    }
}
