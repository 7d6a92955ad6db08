import Foundation
import Testing

@testable import Imago

/// The integer box reduction: exact block averages, partial edge blocks, alpha-weighted colour.
@Suite struct BoxReducerTests {
    @Test(arguments: [
        (6000, 4000, 256, 11), (4000, 3000, 256, 7), (1023, 700, 256, 1), (1024, 700, 256, 2),
        (100, 100, nil, 1), (65_535, 10, 1, 256), (10, 10, 0, 1),
    ] as [(Int, Int, Int?, Int)])
    func factor(_ width: Int, _ height: Int, _ target: Int?, _ expected: Int) {
        #expect(BoxReducer.factor(width: width, height: height, target: target) == expected)
    }

    @Test func averagesBlocksAndPartialEdges() {
        // 5x3 opaque grey ramp, reduced by 2: blocks of 2x2, 1x2, 2x1, 1x1.
        var pixels: [UInt8] = []
        for y in 0..<3 { for x in 0..<5 { let v = UInt8(x * 10 + y * 100); pixels += [v, v, v, 255] } }
        let reduced = BoxReducer.reduce(Bitmap(width: 5, height: 3, alphaMode: .opaque, pixels: pixels), factor: 2)
        #expect(reduced.width == 3 && reduced.height == 2)
        let grey = stride(from: 0, to: reduced.pixels.count, by: 4).map { reduced.pixels[$0] }
        // (0+10+100+110)/4 = 55, (20+30+120+130)/4 = 75, (40+140)/2 = 90; row 2: 205, 225, 240.
        #expect(grey == [55, 75, 90, 205, 225, 240])
    }

    /// A transparent pixel's colour does not bleed into its opaque neighbour's.
    @Test func straightAlphaIsWeighted() {
        let pixels: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 0]
        let reduced = BoxReducer.reduce(Bitmap(width: 2, height: 2, alphaMode: .straight, pixels: pixels), factor: 2)
        #expect(reduced.pixels == [255, 0, 0, 64])
        let empty = BoxReducer.reduce(
            Bitmap(width: 2, height: 2, alphaMode: .straight, pixels: [9, 9, 9, 0, 9, 9, 9, 0, 9, 9, 9, 0, 9, 9, 9, 0]),
            factor: 2)
        #expect(empty.pixels == [0, 0, 0, 0])
    }

    /// A large reduction in two steps stays close to a single Lanczos pass over the whole image.
    @Test func twoStepThumbnailIsCloseToOneLanczosPass() async throws {
        try await offThePool {
            let source = gradientBitmap(width: 2400, height: 1600, alpha: true)
            let twoStep = try ThumbnailProcessor(maximumPixelSize: 200).process(source)
            let direct = Resampler.resample(source, to: PixelSize(width: 200, height: 133))
            #expect(twoStep.width == 200 && twoStep.height == 133)
            #expect(peakSignalToNoise(twoStep, direct) > 40)
        }
    }
}

/// PSNR in dB over all four channels of alpha-premultiplied pixels (so colour under transparency
/// does not count); infinity for equal images.
func peakSignalToNoise(_ a: Bitmap, _ b: Bitmap) -> Double {
    precondition(a.width == b.width && a.height == b.height)
    func premultiplied(_ bitmap: Bitmap, _ index: Int) -> Double {
        let value = Double(bitmap.pixels[index])
        if index % 4 == 3 || bitmap.alphaMode != .straight { return value }
        return value * Double(bitmap.pixels[index - index % 4 + 3]) / 255
    }
    var squares = 0.0
    for index in a.pixels.indices {
        let difference = premultiplied(a, index) - premultiplied(b, index)
        squares += difference * difference
    }
    let mean = squares / Double(a.pixels.count)
    return mean == 0 ? .infinity : 10 * log10(255 * 255 / mean)
}
