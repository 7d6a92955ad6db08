import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// GIF output (fixed 6x7x6 palette, Floyd–Steinberg, LZW) decoded back by Imago's own GIF
/// decoder: the right size, palette colours exactly, pictures within the palette's bound,
/// transparency through the transparent index, and LZW that round-trips across table resets.
@Suite struct GIFEncoderTests {
    /// The largest difference in any channel of any pixel between `a` and `b`.
    static func largestDifference(_ a: Bitmap, _ b: Bitmap) -> Int {
        zip(a.pixels, b.pixels).enumerated().reduce(0) { worst, item in
            item.offset % 4 == 3 ? worst : max(worst, abs(Int(item.element.0) - Int(item.element.1)))
        }
    }

    /// The largest difference between the means of any 8x8 block's channel in `a` and `b`.
    static func largestBlockDifference(_ a: Bitmap, _ b: Bitmap) -> Double {
        var worst = 0.0
        for top in stride(from: 0, to: a.height - 7, by: 8) {
            for left in stride(from: 0, to: a.width - 7, by: 8) {
                for channel in 0..<3 {
                    var sum = 0
                    for y in top..<top + 8 {
                        for x in left..<left + 8 {
                            let index = (y * a.width + x) * 4 + channel
                            sum += Int(a.pixels[index]) - Int(b.pixels[index])
                        }
                    }
                    worst = max(worst, abs(Double(sum) / 64))
                }
            }
        }
        return worst
    }

    @Test(arguments: [(300, 200), (1, 1), (17, 33), (640, 480)])
    func roundTripsWithinThePalettesBound(width: Int, height: Int) throws {
        let original = Fixtures.picture(width: width, height: height, seed: 3)
        let data = try GIFEncoder().encode(original)
        #expect(ImageFormat.sniff(data) == .gif)
        let decoded = try ImageDecoder.decode(data).bitmap()
        #expect(decoded.width == width && decoded.height == height)
        // Each pixel: half a step (25.5) plus at most what its neighbours' error pushes it by.
        #expect(Self.largestDifference(decoded, original) <= 64)
        // Dithering keeps areas' averages: 8x8 blocks within a few levels.
        #expect(Self.largestBlockDifference(decoded, original) <= 8)
    }

    @Test func writesPaletteColoursExactly() throws {
        var original = Bitmap(width: 40, height: 30, fill: RGBA(0, 0, 0))
        for y in 0..<30 {
            for x in 0..<40 {
                let color = RGBA(GIFEncoder.level(x % 6, of: 6), GIFEncoder.level(y % 7, of: 7), GIFEncoder.level((x + y) % 6, of: 6))
                let index = (y * 40 + x) * 4
                original.pixels.replaceSubrange(index..<index + 4, with: [color.r, color.g, color.b, 255])
            }
        }
        let decoded = try ImageDecoder.decode(try GIFEncoder().encode(original)).bitmap()
        #expect(decoded.pixels == original.pixels)
    }

    @Test func keepsTransparencyAsTheTransparentIndex() throws {
        let original = Fixtures.picture(width: 64, height: 48, seed: 2, transparent: true)
        let straight = original.straightAlphaPixels
        let decoded = try ImageDecoder.decode(try GIFEncoder().encode(original)).bitmap()
        let decodedPixels = decoded.straightAlphaPixels
        #expect(straight.enumerated().contains { $0.offset % 4 == 3 && $0.element < 128 }, "the fixture has transparent pixels")
        for index in stride(from: 3, to: straight.count, by: 4) {
            #expect(decodedPixels[index] == (straight[index] < 128 ? 0 : 255))
        }
    }

    @Test(arguments: [0, 1, 2])
    func lzwRoundTripsAcrossTableResets(seed: Int) throws {
        // Noise fills the 4096-entry table many times over; runs exercise long strings.
        var generator = seed
        let indices: [UInt8] = (0..<200_000).map { position in
            generator = generator &* 1_103_515_245 &+ 12_345
            return seed == 2 ? UInt8(position / 5_000 % 256) : UInt8(truncatingIfNeeded: generator >> 16)
        }
        for minimumCodeSize in [2, 8] {
            let input = indices.map { $0 & UInt8((1 << minimumCodeSize) - 1) }
            let compressed = GIFLZWEncoder.compress(input, minimumCodeSize: minimumCodeSize)
            var output: [UInt8] = []
            let count = try LZWDecoder.decode(compressed, minimumCodeSize: minimumCodeSize, capacity: input.count) {
                output.append(contentsOf: $0)
            }
            #expect(count == input.count && output == input)
        }
    }

    @Test func refusesWhatGIFCannotHold() {
        #expect(throws: ImagePipeline.Error.self) { try GIFEncoder().encode(Bitmap(width: 0, height: 0, alphaMode: .opaque, pixels: [])) }
    }

    /// An animation with no frame, an empty frame, frames of two sizes or a canvas past the
    /// format's side is refused with what is wrong, by the GIF and (on Linux) the WebP encoder.
    @Test func animationsRefuseWhatTheirFormatCannotHold() throws {
        let small = Bitmap(width: 4, height: 3, fill: RGBA(0, 0, 0))
        let cases: [(frames: [Bitmap], reason: String)] = [
            ([], "an animation needs at least one frame"),
            ([Bitmap(width: 0, height: 3, alphaMode: .opaque, pixels: [])], "has no pixels"),
            ([small, Bitmap(width: 3, height: 4, fill: RGBA(0, 0, 0))], "frame 2 is 3x4, the canvas 4x3"),
        ]
        func reason(_ encode: () throws(ImagePipeline.Error) -> Data) -> String? {
            do throws(ImagePipeline.Error) {
                _ = try encode()
                return nil
            } catch {
                return error.description
            }
        }
        for (frames, expected) in cases {
            let timed = frames.map { (bitmap: $0, duration: Duration.milliseconds(100)) }
            #expect(reason { () throws(ImagePipeline.Error) in try GIFEncoder().encodeAnimation(timed, loopCount: 0) }?.contains(expected) == true)
            #if os(Linux)
            #expect(reason { () throws(ImagePipeline.Error) in try WebPEncoder().encodeAnimation(timed, loopCount: 0) }?.contains(expected) == true)
            #endif
        }
        // WebP's limit is 16,383 pixels a side (GIF's 65,535 is past any bitmap a test can make).
        #if os(Linux)
        let wide = [(bitmap: Bitmap(width: 16_384, height: 1, fill: RGBA(0, 0, 0)), duration: Duration.milliseconds(100))]
        #expect(reason { () throws(ImagePipeline.Error) in try WebPEncoder().encodeAnimation(wide, loopCount: 0) }?.contains("16384x1 canvas is too large for") == true)
        #endif
        #expect(reason { () throws(ImagePipeline.Error) in try GIFEncoder().encodeAnimation([(small, .milliseconds(100))], loopCount: 0) } == nil)
    }
}
