import Foundation
import Imago

/// Deterministic synthetic pictures (a gradient, soft circles, a grid), encoded by Imago's own
/// encoders: what `imago demo` and `imago serve --demo` show, and what tests and benchmarks load.
public enum SamplePicture {
    /// A deterministic picture of `width` x `height`: a diagonal gradient, soft circles and a
    /// grid, different for every `seed`. With `transparent`, the corners fade to transparent.
    ///
    /// Built row by row from precomputed terms (the gradient depends only on `x + y`; each circle
    /// covers one span of each row it crosses), with plain loops over raw pointers, so it is quick
    /// even in a debug build, where `imago demo` and the tests make many of these.
    public static func bitmap(width: Int, height: Int, seed: Int = 0, transparent: Bool = false) -> Bitmap {
        var random = SplitMix(seed: UInt64(truncatingIfNeeded: seed))
        let hue = Double(random.next() % 360) / 360
        let circles = (0..<5).map { _ in
            Circle(
                x: Double(random.next() % UInt64(max(width, 1))),
                y: Double(random.next() % UInt64(max(height, 1))),
                r: Double(max(width, height)) * (0.05 + Double(random.next() % 100) / 600),
                shade: Double(random.next() % 100) / 100
            )
        }
        let base = rgb(hue: hue)
        let accent = rgb(hue: (hue + 0.4).truncatingRemainder(dividingBy: 1))
        let diagonal = Double(width + height)
        // The gradient at x + y = s, as R, G, B: one table serves every row.
        var gradient = [Double](repeating: 0, count: 3 * max(width + height, 1))
        gradient.withUnsafeMutableBufferPointer { table in
            let table = table.baseAddress!
            var s = 0
            while s < width + height {
                let t = Double(s) / diagonal
                table[3 * s] = base.0 * (1 - t) + accent.0 * t
                table[3 * s + 1] = base.1 * (1 - t) + accent.1 * t
                table[3 * s + 2] = base.2 * (1 - t) + accent.2 * t
                s += 1
            }
        }
        let vignette = transparent ? Vignette(width: width, height: height) : nil
        var row = [Double](repeating: 0, count: 3 * max(width, 1))  // one row of R, G, B
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
            guard width > 0 && height > 0 else { return initialized = 0 }
            let output = buffer.baseAddress!
            gradient.withUnsafeBufferPointer { gradient in
                row.withUnsafeMutableBufferPointer { row in
                    let gradient = gradient.baseAddress!, row = row.baseAddress!
                    for y in 0..<height {
                        // The gradient for this row starts at s = y.
                        let source = gradient + 3 * y
                        var index = 0
                        while index < 3 * width {
                            row[index] = source[index]
                            index += 1
                        }
                        // Circles in order, each only over the span of this row it covers.
                        for circle in circles {
                            guard let span = circle.span(row: y, width: width) else { continue }
                            var x = span.lowerBound
                            while x < span.upperBound {
                                row[3 * x] = row[3 * x] * 0.5 + circle.shade * 127
                                row[3 * x + 1] = row[3 * x + 1] * 0.5 + (1 - circle.shade) * 127
                                row[3 * x + 2] = row[3 * x + 2] * 0.5 + 64
                                x += 1
                            }
                        }
                        // The grid: every 64th row and column is darker.
                        if y % 64 == 0 {
                            index = 0
                            while index < 3 * width {
                                row[index] *= 0.8
                                index += 1
                            }
                        } else {
                            index = 0
                            while index < 3 * width {
                                row[index] *= 0.8
                                row[index + 1] *= 0.8
                                row[index + 2] *= 0.8
                                index += 3 * 64
                            }
                        }
                        // Bytes, truncated as `UInt8(clamping: Int(value))` would.
                        var pixel = output + y * width * 4
                        index = 0
                        while index < 3 * width {
                            let r = Int(row[index]), g = Int(row[index + 1]), b = Int(row[index + 2])
                            pixel[0] = UInt8(truncatingIfNeeded: r < 0 ? 0 : r > 255 ? 255 : r)
                            pixel[1] = UInt8(truncatingIfNeeded: g < 0 ? 0 : g > 255 ? 255 : g)
                            pixel[2] = UInt8(truncatingIfNeeded: b < 0 ? 0 : b > 255 ? 255 : b)
                            pixel[3] = 255
                            pixel += 4
                            index += 3
                        }
                        if let vignette {
                            vignette.fade(row: y, into: output + y * width * 4 + 3, width: width)
                        }
                    }
                }
            }
            initialized = width * height * 4
        }
        return Bitmap(width: width, height: height, alphaMode: transparent ? .straight : .opaque, pixels: pixels)
    }

    /// ``bitmap(width:height:seed:transparent:)`` encoded as a JPEG.
    public static func jpeg(width: Int, height: Int, seed: Int = 0, quality: Double = 0.85) throws -> Data {
        try JPEGEncoder(quality: quality).encode(bitmap(width: width, height: height, seed: seed))
    }

    /// ``bitmap(width:height:seed:transparent:)`` encoded as a PNG.
    public static func png(width: Int, height: Int, seed: Int = 0, transparent: Bool = false) throws -> Data {
        try PNGEncoder().encode(bitmap(width: width, height: height, seed: seed, transparent: transparent))
    }

    private static func rgb(hue: Double) -> (Double, Double, Double) {
        func channel(_ offset: Double) -> Double {
            let k = (hue * 6 + offset).truncatingRemainder(dividingBy: 6)
            return 255 * (1 - max(0, min(k, 4 - k, 1)) * 0.7)
        }
        return (channel(5), channel(3), channel(1))
    }

    /// A soft circle that darkens and tints what it covers.
    private struct Circle {
        var x: Double
        var y: Double
        var r: Double
        var shade: Double

        /// The columns of row `y` strictly inside the circle (`dx² + dy² < r²`), clipped to
        /// `0..<width`; `nil` when the row misses it.
        func span(row y: Int, width: Int) -> Range<Int>? {
            let dy = Double(y) - self.y
            let room = r * r - dy * dy
            guard room > 0 else { return nil }
            func inside(_ column: Int) -> Bool {
                let dx = Double(column) - x
                return dx * dx + dy * dy < r * r
            }
            // Estimate the ends with a square root, then settle them with the exact test, so the
            // span is the same set of pixels a per-pixel test would pick.
            let half = room.squareRoot()
            var low = Int((x - half).rounded(.up))
            var high = Int((x + half).rounded(.down))
            while inside(low - 1) { low -= 1 }
            while low <= high && !inside(low) { low += 1 }
            while inside(high + 1) { high += 1 }
            while high >= low && !inside(high) { high -= 1 }
            let start = max(low, 0), end = min(high + 1, width)
            return start < end ? start..<end : nil
        }
    }

    /// Alpha falling from opaque in the middle to transparent in the corners.
    private struct Vignette {
        let centreX: Double
        let centreY: Double
        let maxDistance: Double

        init(width: Int, height: Int) {
            centreX = Double(width) / 2
            centreY = Double(height) / 2
            maxDistance = (centreX * centreX + centreY * centreY).squareRoot()
        }

        /// Writes the alpha of row `y` to every fourth byte from `alpha` on.
        func fade(row y: Int, into alpha: UnsafeMutablePointer<UInt8>, width: Int) {
            let dy = Double(y) - centreY
            // Within 0.37 of the longest distance the alpha is surely 255 (it falls from 0.375).
            let opaqueSquared = 0.37 * 0.37 * maxDistance * maxDistance
            var x = 0
            while x < width {
                let dx = Double(x) - centreX
                let squared = dx * dx + dy * dy
                var value = 255
                if squared > opaqueSquared {
                    let fade = 1.6 - 1.6 * (squared.squareRoot() / maxDistance)
                    value = Int(255 * (fade >= 1 ? 1 : fade <= 0 ? 0 : fade))
                }
                alpha[4 * x] = UInt8(truncatingIfNeeded: value)
                x += 1
            }
        }
    }
}

