import Foundation
import Imago

/// Real images made on the spot: synthetic "photos" with gradients and shapes, encoded by the
/// library's own encoders, for tests, benchmarks and `imago demo`.
public enum Fixtures {
    /// A deterministic picture of `width` x `height`: a diagonal gradient, soft circles and a
    /// grid, different for every `seed`. With `transparent`, the corners fade to transparent.
    public static func picture(width: Int, height: Int, seed: Int = 0, transparent: Bool = false) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var random = SplitMix(seed: UInt64(truncatingIfNeeded: seed))
        let hue = Double(random.next() % 360) / 360
        let circles = (0..<5).map { _ in
            (
                x: Double(random.next() % UInt64(max(width, 1))),
                y: Double(random.next() % UInt64(max(height, 1))),
                r: Double(max(width, height)) * (0.05 + Double(random.next() % 100) / 600),
                shade: Double(random.next() % 100) / 100
            )
        }
        let base = rgb(hue: hue)
        let accent = rgb(hue: (hue + 0.4).truncatingRemainder(dividingBy: 1))
        let diagonal = Double(width + height)
        let centreX = Double(width) / 2, centreY = Double(height) / 2
        let maxDistance = (centreX * centreX + centreY * centreY).squareRoot()
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<height {
                for x in 0..<width {
                    let t = Double(x + y) / diagonal
                    var r = base.0 * (1 - t) + accent.0 * t
                    var g = base.1 * (1 - t) + accent.1 * t
                    var b = base.2 * (1 - t) + accent.2 * t
                    for circle in circles {
                        let dx = Double(x) - circle.x, dy = Double(y) - circle.y
                        if dx * dx + dy * dy < circle.r * circle.r {
                            r = r * 0.5 + circle.shade * 127
                            g = g * 0.5 + (1 - circle.shade) * 127
                            b = b * 0.5 + 64
                        }
                    }
                    if x % 64 == 0 || y % 64 == 0 { r *= 0.8; g *= 0.8; b *= 0.8 }
                    let index = (y * width + x) * 4
                    buffer[index] = UInt8(clamping: Int(r))
                    buffer[index + 1] = UInt8(clamping: Int(g))
                    buffer[index + 2] = UInt8(clamping: Int(b))
                    if transparent {
                        let dx = Double(x) - centreX, dy = Double(y) - centreY
                        let distance = (dx * dx + dy * dy).squareRoot() / maxDistance
                        buffer[index + 3] = UInt8(clamping: Int(255 * min(1, max(0, 1.6 - 1.6 * distance))))
                    } else {
                        buffer[index + 3] = 255
                    }
                }
            }
        }
        return Bitmap(width: width, height: height, alphaMode: transparent ? .straight : .opaque, pixels: pixels)
    }

    /// ``picture(width:height:seed:transparent:)`` encoded as a JPEG.
    public static func jpeg(width: Int, height: Int, seed: Int = 0, quality: Int = 85) throws -> Data {
        try JPEGEncoder(quality: quality).encode(picture(width: width, height: height, seed: seed))
    }

    /// ``picture(width:height:seed:transparent:)`` encoded as a PNG.
    public static func png(width: Int, height: Int, seed: Int = 0, transparent: Bool = false) throws -> Data {
        try PNGEncoder().encode(picture(width: width, height: height, seed: seed, transparent: transparent))
    }

    private static func rgb(hue: Double) -> (Double, Double, Double) {
        func channel(_ offset: Double) -> Double {
            let k = (hue * 6 + offset).truncatingRemainder(dividingBy: 6)
            return 255 * (1 - max(0, min(k, 4 - k, 1)) * 0.7)
        }
        return (channel(5), channel(3), channel(1))
    }
}

/// A small, fast, deterministic generator (SplitMix64), so fixtures are the same on every run.
public struct SplitMix: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
