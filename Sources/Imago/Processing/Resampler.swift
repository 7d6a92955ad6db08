import Foundation

/// Scales a ``Bitmap`` with a separable filter: Lanczos-3 when shrinking (sharp, no aliasing),
/// Catmull-Rom when enlarging (interpolates without Lanczos's stronger ringing).
///
/// The filter runs in premultiplied alpha, so the meaningless colour of transparent pixels cannot
/// bleed into their neighbours as a dark fringe; the result has the source's alpha mode. Each
/// source row is filtered horizontally into a small ring of rows that the vertical pass reads, so
/// besides the output only a few rows are held, never a full-size intermediate. Filtering happens
/// on the stored (sRGB-encoded) values, as most image libraries do.
enum Resampler {
    /// The part of the source, in source pixels (fractions allowed), that fills the destination.
    struct Region: Equatable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double

        /// The whole of `bitmap`.
        init(of bitmap: Bitmap) {
            self.init(x: 0, y: 0, width: Double(bitmap.width), height: Double(bitmap.height))
        }

        init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// `region` of `source` scaled to exactly `size`. Pixels just outside `region` still feed the
    /// filter at its edges, which is what a crop after a full resize would have shown.
    ///
    /// - Precondition: `source` and `size` are non-empty and `region` lies within `source`.
    static func resample(_ source: Bitmap, region: Region? = nil, to size: PixelSize) -> Bitmap {
        let region = region ?? Region(of: source)
        precondition(source.width > 0 && source.height > 0 && size.width > 0 && size.height > 0)
        if region == Region(of: source) && size == PixelSize(width: source.width, height: source.height) {
            return source
        }
        let horizontal = Contributions(
            sourceCount: source.width, start: region.x, length: region.width, destinationCount: size.width)
        let vertical = Contributions(
            sourceCount: source.height, start: region.y, length: region.height, destinationCount: size.height)

        var pixels = [UInt8](repeating: 0, count: size.width * size.height * Bitmap.bytesPerPixel)
        // Horizontally filtered rows, indexed by source row modulo the capacity: enough for the
        // widest vertical window, and the windows only move down.
        let ringCapacity = vertical.stride
        var ring = [SIMD4<Float>](repeating: .zero, count: ringCapacity * size.width)
        var sourceRow = [SIMD4<Float>](repeating: .zero, count: source.width)
        var accumulator = [SIMD4<Float>](repeating: .zero, count: size.width)

        source.pixels.withUnsafeBufferPointer { input in
            ring.withUnsafeMutableBufferPointer { ring in
                sourceRow.withUnsafeMutableBufferPointer { sourceRow in
                    accumulator.withUnsafeMutableBufferPointer { accumulator in
                        pixels.withUnsafeMutableBufferPointer { output in
                            var nextRow = 0  // the first source row not filtered yet
                            for y in 0..<size.height {
                                let first = vertical.first[y]
                                let end = first + vertical.count[y]
                                nextRow = max(nextRow, first)
                                while nextRow < end {
                                    loadPremultiplied(
                                        row: nextRow, of: source, from: input, into: sourceRow)
                                    let slot = ring.baseAddress! + (nextRow % ringCapacity) * size.width
                                    horizontal.apply(
                                        to: UnsafeBufferPointer(sourceRow),
                                        into: UnsafeMutableBufferPointer(start: slot, count: size.width))
                                    nextRow += 1
                                }
                                accumulator.update(repeating: .zero)
                                vertical.weights.withUnsafeBufferPointer { weights in
                                    for k in 0..<(end - first) {
                                        let weight = weights[y * vertical.stride + k]
                                        let slot = ((first + k) % ringCapacity) * size.width
                                        for x in 0..<size.width {
                                            accumulator[x] += ring[slot + x] * weight
                                        }
                                    }
                                }
                                store(
                                    UnsafeBufferPointer(accumulator), alphaMode: source.alphaMode,
                                    into: output, at: y * size.width * Bitmap.bytesPerPixel)
                            }
                        }
                    }
                }
            }
        }
        return Bitmap(width: size.width, height: size.height, alphaMode: source.alphaMode, pixels: pixels)
    }

    /// Source row `row` as premultiplied floats on the 0...255 scale.
    private static func loadPremultiplied(
        row: Int, of source: Bitmap, from input: UnsafeBufferPointer<UInt8>,
        into destination: UnsafeMutableBufferPointer<SIMD4<Float>>
    ) {
        let start = row * source.bytesPerRow
        let multiply = source.alphaMode == .straight
        for x in 0..<source.width {
            let index = start + x * Bitmap.bytesPerPixel
            let pixel = SIMD4<Float>(
                Float(input[index]), Float(input[index + 1]), Float(input[index + 2]), Float(input[index + 3]))
            if multiply {
                let alpha = pixel.w
                var scaled = pixel * (alpha / 255)
                scaled.w = alpha
                destination[x] = scaled
            } else {
                destination[x] = pixel
            }
        }
    }

    /// Writes one row of premultiplied floats as RGBA8 in `alphaMode`, rounded and clamped.
    private static func store(
        _ row: UnsafeBufferPointer<SIMD4<Float>>, alphaMode: Bitmap.AlphaMode,
        into output: UnsafeMutableBufferPointer<UInt8>, at start: Int
    ) {
        for x in 0..<row.count {
            var pixel = row[x]
            switch alphaMode {
            case .opaque:
                pixel.w = 255
            case .premultiplied:
                pixel.w = min(max(pixel.w, 0), 255)
                pixel = pixel.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: pixel.w))
            case .straight:
                let alpha = min(pixel.w, 255)
                if alpha < 0.5 {
                    pixel = .zero
                } else {
                    pixel *= 255 / alpha
                    pixel.w = alpha
                }
            }
            pixel = pixel.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255)) + 0.5
            let index = start + x * Bitmap.bytesPerPixel
            output[index] = UInt8(pixel.x)
            output[index + 1] = UInt8(pixel.y)
            output[index + 2] = UInt8(pixel.z)
            output[index + 3] = UInt8(pixel.w)
        }
    }
}

extension Resampler {
    /// Which source pixels, with which weights, make up each destination pixel along one axis.
    /// Computed once per axis, so the inner loops only multiply and add.
    struct Contributions {
        /// The first contributing source index of each destination index.
        var first: [Int]
        /// How many source indices contribute to each destination index.
        var count: [Int]
        /// `stride` weights per destination index, each run summing to 1.
        var weights: [Float]
        /// The largest possible `count`, and the spacing of runs in `weights`.
        let stride: Int

        init(sourceCount: Int, start: Double, length: Double, destinationCount: Int) {
            let scale = Double(destinationCount) / length  // below 1 when shrinking
            let kernel: Kernel = scale < 1 ? .lanczos3 : .catmullRom
            // When shrinking, the kernel widens to cover every source pixel a destination pixel
            // stands for; that is what prevents aliasing.
            let kernelScale = max(1, 1 / scale)
            let support = kernel.radius * kernelScale
            // Source pixel j (centre j + 0.5) contributes while |j + 0.5 - centre| < support, so
            // at most ceil(2 * support) + 1 of them do.
            stride = min(Int((2 * support).rounded(.up)) + 1, sourceCount)
            first = [Int](repeating: 0, count: destinationCount)
            count = [Int](repeating: 0, count: destinationCount)
            weights = [Float](repeating: 0, count: destinationCount * stride)

            for index in 0..<destinationCount {
                let centre = start + (Double(index) + 0.5) / scale
                var low = max(0, Int((centre - support - 0.5).rounded(.down)))
                var high = max(low, min(sourceCount, Int((centre + support - 0.5).rounded(.down)) + 1))
                var values = [Double](repeating: 0, count: high - low)
                var total = 0.0
                for source in low..<high {
                    let value = kernel.value(at: (Double(source) + 0.5 - centre) / kernelScale)
                    values[source - low] = value
                    total += value
                }
                if total.magnitude < 1e-9 {
                    // Too far outside the source to be reached: take the nearest pixel.
                    let nearest = min(max(Int(centre.rounded(.down)), 0), sourceCount - 1)
                    (low, high, values, total) = (nearest, nearest + 1, [1], 1)
                }
                first[index] = low
                count[index] = high - low
                for offset in values.indices {
                    weights[index * stride + offset] = Float(values[offset] / total)
                }
            }
        }

        /// Filters one row (or any run of pixels) along this axis.
        func apply(
            to source: UnsafeBufferPointer<SIMD4<Float>>, into destination: UnsafeMutableBufferPointer<SIMD4<Float>>
        ) {
            weights.withUnsafeBufferPointer { weights in
                for index in 0..<destination.count {
                    let start = first[index]
                    let base = index * stride
                    var sum = SIMD4<Float>.zero
                    for offset in 0..<count[index] {
                        sum += source[start + offset] * weights[base + offset]
                    }
                    destination[index] = sum
                }
            }
        }
    }

    /// The filter shapes, as functions of the distance in (scaled) source pixels.
    enum Kernel {
        case lanczos3
        case catmullRom

        /// Beyond this distance the kernel is zero.
        var radius: Double {
            switch self {
            case .lanczos3: 3
            case .catmullRom: 2
            }
        }

        func value(at distance: Double) -> Double {
            let x = distance.magnitude
            switch self {
            case .lanczos3:
                guard x < 3 else { return 0 }
                guard x > 1e-8 else { return 1 }
                let pix = Double.pi * x
                return 3 * sin(pix) * sin(pix / 3) / (pix * pix)
            case .catmullRom:
                if x < 1 { return (1.5 * x - 2.5) * x * x + 1 }
                if x < 2 { return ((-0.5 * x + 2.5) * x - 4) * x + 2 }
                return 0
            }
        }
    }
}
