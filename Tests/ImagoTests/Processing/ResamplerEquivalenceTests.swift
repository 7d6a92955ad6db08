import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

extension ProcessingTests {
    /// The resampler's fast loops (a ring of filtered rows, pairs of pixels, raw pointers) give what
    /// a plain, slow evaluation of the same separable filter gives, within rounding.
    @Suite struct ResamplerEquivalenceTests {
        @Test(
            "matches a direct evaluation on random images",
            arguments: [Bitmap.AlphaMode.opaque, .straight, .premultiplied])
        func matchesDirectEvaluation(_ alphaMode: Bitmap.AlphaMode) {
            var random = SplitMix(seed: 42)
            for trial in 0..<40 {
                let width = Int(random.next() % 30) + 1, height = Int(random.next() % 30) + 1
                let source = Self.noise(width: width, height: height, alphaMode: alphaMode, using: &random)
                // Shrinking and enlarging, each axis on its own.
                let size = PixelSize(width: Int(random.next() % 45) + 1, height: Int(random.next() % 45) + 1)
                var region = Resampler.Region(of: source)
                if trial % 3 == 1 {
                    region.x = Double(random.next() % 100) / 100 * Double(width) / 2
                    region.y = Double(random.next() % 100) / 100 * Double(height) / 2
                    region.width = (Double(width) - region.x) * Double(random.next() % 90 + 10) / 100
                    region.height = (Double(height) - region.y) * Double(random.next() % 90 + 10) / 100
                }
                let fast = Resampler.resample(source, region: region, to: size)
                let slow = Self.directResample(source, region: region, to: size)
                #expect(fast.alphaMode == alphaMode)
                #expect(fast.width == size.width && fast.height == size.height)
                let worst = zip(fast.pixels, slow.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
                #expect(worst <= 1, "\(width)x\(height) \(region) → \(size): off by \(worst)")
            }
        }

        @Test func matchesDirectEvaluationOnAPicture() async {
            await offThePool {
                for transparent in [false, true] {
                    let source = Fixtures.picture(width: 120, height: 90, seed: 5, transparent: transparent)
                    for size in [PixelSize(width: 32, height: 24), PixelSize(width: 200, height: 77)] {
                        let fast = Resampler.resample(source, to: size)
                        let slow = Self.directResample(source, region: Resampler.Region(of: source), to: size)
                        let worst = zip(fast.pixels, slow.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
                        #expect(worst <= 1, "transparent \(transparent) → \(size): off by \(worst)")
                    }
                }
            }
        }

        /// Random pixels that are valid in `alphaMode`.
        static func noise(
            width: Int, height: Int, alphaMode: Bitmap.AlphaMode, using random: inout SplitMix
        ) -> Bitmap {
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            for index in stride(from: 0, to: pixels.count, by: 4) {
                let alpha: UInt8 = alphaMode == .opaque ? 255 : UInt8(truncatingIfNeeded: random.next())
                for channel in 0..<3 {
                    let value = UInt8(truncatingIfNeeded: random.next())
                    pixels[index + channel] = alphaMode == .premultiplied ? min(value, alpha) : value
                }
                pixels[index + 3] = alpha
            }
            return Bitmap(width: width, height: height, alphaMode: alphaMode, pixels: pixels)
        }

        /// Every destination pixel summed straight from the source in `Double`, with each axis's
        /// weights found by testing every source index against the kernel.
        static func directResample(_ source: Bitmap, region: Resampler.Region, to size: PixelSize) -> Bitmap {
            let columns = weights(sourceCount: source.width, start: region.x, length: region.width, count: size.width)
            let rows = weights(sourceCount: source.height, start: region.y, length: region.height, count: size.height)
            var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
            for y in 0..<size.height {
                for x in 0..<size.width {
                    var sum = [0.0, 0.0, 0.0, 0.0]
                    for (row, rowWeight) in rows[y] {
                        for (column, columnWeight) in columns[x] {
                            let pixel = source[column, row]
                            let alpha = Double(pixel.a)
                            let scale = source.alphaMode == .straight ? alpha / 255 : 1
                            let values = [
                                Double(pixel.r) * scale, Double(pixel.g) * scale, Double(pixel.b) * scale, alpha,
                            ]
                            for channel in 0..<4 { sum[channel] += values[channel] * rowWeight * columnWeight }
                        }
                    }
                    var alpha = sum[3]
                    var colour = Array(sum[0..<3])
                    switch source.alphaMode {
                    case .opaque:
                        alpha = 255
                    case .premultiplied:
                        alpha = min(max(alpha, 0), 255)
                        colour = colour.map { min(max($0, 0), alpha) }
                    case .straight:
                        alpha = min(alpha, 255)
                        colour = alpha < 0.5 ? [0, 0, 0] : colour.map { $0 * 255 / alpha }
                        if alpha < 0.5 { alpha = 0 }
                    }
                    let index = (y * size.width + x) * 4
                    for (channel, value) in (colour + [alpha]).enumerated() {
                        pixels[index + channel] = UInt8(min(max(value, 0), 255).rounded())
                    }
                }
            }
            return Bitmap(width: size.width, height: size.height, alphaMode: source.alphaMode, pixels: pixels)
        }

        /// For each destination index, its source indices and normalised weights.
        static func weights(sourceCount: Int, start: Double, length: Double, count: Int) -> [[(Int, Double)]] {
            let scale = Double(count) / length
            let kernel: Resampler.Kernel = scale < 1 ? .lanczos3 : .catmullRom
            let kernelScale = max(1, 1 / scale)
            return (0..<count).map { index in
                let centre = start + (Double(index) + 0.5) / scale
                let taps = (0..<sourceCount).map { source in
                    (source, kernel.value(at: (Double(source) + 0.5 - centre) / kernelScale))
                }.filter { $0.1 != 0 }
                let total = taps.reduce(0) { $0 + $1.1 }
                guard total.magnitude >= 1e-9 else {
                    return [(min(max(Int(centre.rounded(.down)), 0), sourceCount - 1), 1)]
                }
                return taps.map { ($0.0, $0.1 / total) }
            }
        }
    }
}
