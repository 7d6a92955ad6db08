import Foundation

/// Scales a ``Bitmap`` with a separable filter: Lanczos-3 when shrinking (sharp, no aliasing),
/// Catmull-Rom when enlarging (interpolates without Lanczos's stronger ringing).
///
/// The filter runs in premultiplied alpha, so the meaningless colour of transparent pixels cannot
/// bleed into their neighbours as a dark fringe; the result has the source's alpha mode. Each
/// source row is filtered horizontally into a small ring of rows that the vertical pass reads, so
/// besides the output only a few rows are held, never a full-size intermediate. Filtering happens
/// on the stored (sRGB-encoded) values, as most image libraries do.
package enum Resampler {
    /// The part of the source, in source pixels (fractions allowed), that fills the destination.
    package struct Region: Equatable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double

        /// The whole of `bitmap`.
        init(of bitmap: Bitmap) {
            self.init(x: 0, y: 0, width: Double(bitmap.width), height: Double(bitmap.height))
        }

        package init(x: Double, y: Double, width: Double, height: Double) {
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
    package static func resample(_ source: Bitmap, region: Region? = nil, to size: PixelSize) -> Bitmap {
        let region = region ?? Region(of: source)
        precondition(source.width > 0 && source.height > 0 && size.width > 0 && size.height > 0)
        if region == Region(of: source) && size == PixelSize(width: source.width, height: source.height) {
            return source
        }
        let horizontal = Contributions(
            sourceCount: source.width, start: region.x, length: region.width, destinationCount: size.width)
        let vertical = Contributions(
            sourceCount: source.height, start: region.y, length: region.height, destinationCount: size.height)

        // Rows of floats are laid out R, G, B, A per pixel. The loops below are plain `while`
        // loops over raw pointers with scalar arithmetic, because in a debug build (where users
        // first run `imago demo`) every `SIMD4` operation, iterator step or array subscript is a
        // function call; optimised, the compiler vectorises these loops itself.
        let rowLength = size.width * 4
        // Horizontally filtered rows, indexed by source row modulo the capacity: enough for the
        // widest vertical window, and the windows only move down.
        let ringCapacity = vertical.stride
        let ring = UnsafeMutablePointer<Float>.allocate(capacity: ringCapacity * rowLength)
        defer { ring.deallocate() }
        let sourceRow = UnsafeMutablePointer<Float>.allocate(capacity: source.width * 4)
        defer { sourceRow.deallocate() }
        let accumulator = UnsafeMutablePointer<Float>.allocate(capacity: rowLength)
        defer { accumulator.deallocate() }

        let premultiply = source.alphaMode == .straight
        let pixels = [UInt8](unsafeUninitializedCapacity: size.height * rowLength) { output, initialized in
            let output = output.baseAddress!
            source.pixels.withUnsafeBufferPointer { input in
                let input = input.baseAddress!
                horizontal.withUnsafeTable { horizontal in
                    vertical.withUnsafeTable { vertical in
                        var nextRow = 0  // the first source row not filtered yet
                        for y in 0..<size.height {
                            let first = vertical.first[y]
                            if nextRow < first { nextRow = first }
                            while nextRow < first + vertical.stride {
                                loadRow(
                                    input + nextRow * source.bytesPerRow, count: source.width,
                                    premultiply: premultiply, into: sourceRow)
                                horizontal.filter(sourceRow, into: ring + (nextRow % ringCapacity) * rowLength)
                                nextRow += 1
                            }
                            vertical.combine(
                                ring: ring, capacity: ringCapacity, rowLength: rowLength, at: y, into: accumulator)
                            store(
                                accumulator, count: size.width, alphaMode: source.alphaMode,
                                into: output + y * rowLength)
                        }
                    }
                }
            }
            initialized = size.height * rowLength
        }
        return Bitmap(width: size.width, height: size.height, alphaMode: source.alphaMode, pixels: pixels)
    }

    /// One source row (`count` RGBA8 pixels) as premultiplied floats on the 0...255 scale.
    private static func loadRow(
        _ input: UnsafePointer<UInt8>, count: Int, premultiply: Bool, into destination: UnsafeMutablePointer<Float>
    ) {
        var index = 0
        let end = count * 4
        if premultiply {
            while index < end {
                let alpha = Float(input[index + 3])
                let scale = alpha / 255
                destination[index] = Float(input[index]) * scale
                destination[index + 1] = Float(input[index + 1]) * scale
                destination[index + 2] = Float(input[index + 2]) * scale
                destination[index + 3] = alpha
                index += 4
            }
        } else {
            // A plain conversion, which an optimised build turns into vector instructions.
            while index < end {
                destination[index] = Float(input[index])
                index += 1
            }
        }
    }

    /// Writes `count` premultiplied float pixels as RGBA8 in `alphaMode`, rounded and clamped.
    private static func store(
        _ row: UnsafePointer<Float>, count: Int, alphaMode: Bitmap.AlphaMode, into output: UnsafeMutablePointer<UInt8>
    ) {
        var index = 0
        let end = count * 4
        switch alphaMode {
        case .opaque:
            // Apart from the others, so that this most common case has no branch per pixel.
            while index < end {
                output[index] = byte(row[index])
                output[index + 1] = byte(row[index + 1])
                output[index + 2] = byte(row[index + 2])
                output[index + 3] = 255
                index += 4
            }
        case .straight:
            while index < end {
                var red = row[index], green = row[index + 1], blue = row[index + 2], alpha = row[index + 3]
                if alpha > 255 { alpha = 255 }
                if alpha < 0.5 {
                    (red, green, blue, alpha) = (0, 0, 0, 0)
                } else {
                    let scale = 255 / alpha
                    red *= scale
                    green *= scale
                    blue *= scale
                }
                output[index] = byte(red)
                output[index + 1] = byte(green)
                output[index + 2] = byte(blue)
                output[index + 3] = byte(alpha)
                index += 4
            }
        case .premultiplied:
            while index < end {
                // No colour may exceed its alpha.
                var alpha = row[index + 3]
                alpha = alpha < 0 ? 0 : alpha > 255 ? 255 : alpha
                let red = row[index], green = row[index + 1], blue = row[index + 2]
                output[index] = byte(red > alpha ? alpha : red)
                output[index + 1] = byte(green > alpha ? alpha : green)
                output[index + 2] = byte(blue > alpha ? alpha : blue)
                output[index + 3] = byte(alpha)
                index += 4
            }
        }
    }

    /// `value` clamped to 0...255 and rounded to the nearest byte (halves to even).
    ///
    /// Adding 1.5 × 2²³ leaves the rounded integer in the low bits of the float's significand, so
    /// the conversion is a bit mask: no branch and no trapping float-to-integer check, which lets
    /// an optimised build vectorise the loops that call it.
    @inline(__always)
    private static func byte(_ value: Float) -> UInt8 {
        let clamped = value < 0 ? 0 : value > 255 ? 255 : value
        return UInt8(truncatingIfNeeded: (clamped + 12_582_912).bitPattern)
    }
}

extension Resampler {
    /// Which source pixels, with which weights, make up each destination pixel along one axis.
    /// Computed once per axis, so the inner loops only multiply and add.
    ///
    /// Every window has the same length, `stride`: a window shorter than the longest is padded with
    /// zero weights (moved inwards at the edges of the source), so the inner loops run a fixed
    /// count and have no tails.
    struct Contributions {
        /// The first contributing source index of each destination index.
        var first: [Int]
        /// `stride` weights per destination index, each run summing to 1.
        var weights: [Float]
        /// How many source indices contribute to every destination index.
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
            let bound = min(Int((2 * support).rounded(.up)) + 1, sourceCount)
            var first = [Int](repeating: 0, count: destinationCount)
            var counts = [Int](repeating: 0, count: destinationCount)
            var weights = [Float](repeating: 0, count: destinationCount * bound)
            var values = [Double](repeating: 0, count: bound)

            for index in 0..<destinationCount {
                let centre = start + (Double(index) + 0.5) / scale
                var low = max(0, Int((centre - support - 0.5).rounded(.down)))
                let high = max(low, min(sourceCount, Int((centre + support - 0.5).rounded(.down)) + 1, low + bound))
                var total = 0.0
                for source in low..<high {
                    let value = kernel.value(at: (Double(source) + 0.5 - centre) / kernelScale)
                    values[source - low] = value
                    total += value
                }
                var count = high - low
                if total.magnitude < 1e-9 {
                    // Too far outside the source to be reached: take the nearest pixel.
                    low = min(max(Int(centre.rounded(.down)), 0), sourceCount - 1)
                    (count, values[0], total) = (1, 1, 1)
                }
                first[index] = low
                counts[index] = count
                for offset in 0..<count {
                    weights[index * bound + offset] = Float(values[offset] / total)
                }
            }

            // Pad every window to the longest: shift a window that would run past the end of the
            // source back, with its weights, and fill the rest with zeros.
            let stride = max(1, counts.max() ?? 1)
            self.stride = stride
            self.first = first
            self.weights = [Float](repeating: 0, count: destinationCount * stride)
            for index in 0..<destinationCount {
                let shift = max(0, first[index] + stride - sourceCount)
                self.first[index] = first[index] - shift
                for offset in 0..<counts[index] {
                    self.weights[index * stride + shift + offset] = weights[index * bound + offset]
                }
            }
        }

        /// Calls `body` with the tables as raw pointers, for the inner loops.
        func withUnsafeTable<Result>(_ body: (Table) -> Result) -> Result {
            first.withUnsafeBufferPointer { first in
                weights.withUnsafeBufferPointer { weights in
                    body(
                        Table(
                            first: first.baseAddress!, weights: weights.baseAddress!, stride: stride,
                            destinationCount: first.count))
                }
            }
        }
    }

    /// ``Contributions`` seen through raw pointers, valid only inside
    /// ``Contributions/withUnsafeTable(_:)``.
    struct Table {
        let first: UnsafePointer<Int>
        let weights: UnsafePointer<Float>
        let stride: Int
        let destinationCount: Int

        /// Filters one row of RGBA floats along this axis into `destinationCount` pixels.
        ///
        /// Four destination pixels are summed side by side: each adds its taps in order, but the
        /// four chains of additions are independent, so an optimised build overlaps them instead
        /// of waiting for each addition to finish.
        func filter(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>) {
            var output = destination
            var index = 0
            while index &+ 4 <= destinationCount {
                var weightA = weights + index &* stride
                var weightB = weightA + stride
                var weightC = weightB + stride
                var weightD = weightC + stride
                var pixelA = source + first[index] &* 4
                var pixelB = source + first[index &+ 1] &* 4
                var pixelC = source + first[index &+ 2] &* 4
                var pixelD = source + first[index &+ 3] &* 4
                var redA: Float = 0, greenA: Float = 0, blueA: Float = 0, alphaA: Float = 0
                var redB: Float = 0, greenB: Float = 0, blueB: Float = 0, alphaB: Float = 0
                var redC: Float = 0, greenC: Float = 0, blueC: Float = 0, alphaC: Float = 0
                var redD: Float = 0, greenD: Float = 0, blueD: Float = 0, alphaD: Float = 0
                let end = weightB
                while weightA < end {
                    let a = weightA.pointee, b = weightB.pointee, c = weightC.pointee, d = weightD.pointee
                    redA += pixelA[0] * a
                    greenA += pixelA[1] * a
                    blueA += pixelA[2] * a
                    alphaA += pixelA[3] * a
                    redB += pixelB[0] * b
                    greenB += pixelB[1] * b
                    blueB += pixelB[2] * b
                    alphaB += pixelB[3] * b
                    redC += pixelC[0] * c
                    greenC += pixelC[1] * c
                    blueC += pixelC[2] * c
                    alphaC += pixelC[3] * c
                    redD += pixelD[0] * d
                    greenD += pixelD[1] * d
                    blueD += pixelD[2] * d
                    alphaD += pixelD[3] * d
                    pixelA += 4
                    pixelB += 4
                    pixelC += 4
                    pixelD += 4
                    weightA += 1
                    weightB += 1
                    weightC += 1
                    weightD += 1
                }
                (output[0], output[1], output[2], output[3]) = (redA, greenA, blueA, alphaA)
                (output[4], output[5], output[6], output[7]) = (redB, greenB, blueB, alphaB)
                (output[8], output[9], output[10], output[11]) = (redC, greenC, blueC, alphaC)
                (output[12], output[13], output[14], output[15]) = (redD, greenD, blueD, alphaD)
                output += 16
                index &+= 4
            }
            while index < destinationCount {
                var weight = weights + index &* stride
                var pixel = source + first[index] &* 4
                let end = weight + stride
                var red: Float = 0, green: Float = 0, blue: Float = 0, alpha: Float = 0
                while weight < end {
                    red += pixel[0] * weight.pointee
                    green += pixel[1] * weight.pointee
                    blue += pixel[2] * weight.pointee
                    alpha += pixel[3] * weight.pointee
                    pixel += 4
                    weight += 1
                }
                (output[0], output[1], output[2], output[3]) = (red, green, blue, alpha)
                output += 4
                index &+= 1
            }
        }

        /// Filters along this (vertical) axis: the weighted sum, for destination row `row`, of
        /// the filtered source rows held in `ring` (source row `r` at slot `r % capacity`).
        ///
        /// Taps are taken three at a time, so the accumulator row is read and written once per
        /// three source rows rather than once per row.
        func combine(
            ring: UnsafePointer<Float>, capacity: Int, rowLength: Int, at row: Int,
            into accumulator: UnsafeMutablePointer<Float>
        ) {
            let first = self.first[row]
            let weights = self.weights + row * stride
            func source(_ tap: Int) -> UnsafePointer<Float> { ring + ((first + tap) % capacity) * rowLength }
            var index = 0
            while index < rowLength {
                accumulator[index] = 0
                index += 1
            }
            var tap = 0
            while tap + 3 <= stride {
                let (source0, source1, source2) = (source(tap), source(tap + 1), source(tap + 2))
                let (weight0, weight1, weight2) = (weights[tap], weights[tap + 1], weights[tap + 2])
                index = 0
                while index < rowLength {
                    accumulator[index] += source0[index] * weight0 + source1[index] * weight1 + source2[index] * weight2
                    index += 1
                }
                tap += 3
            }
            while tap < stride {
                let (source0, weight0) = (source(tap), weights[tap])
                index = 0
                while index < rowLength {
                    accumulator[index] += source0[index] * weight0
                    index += 1
                }
                tap += 1
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
                // 3 sin(πx) sin(πx/3) / (πx)², with sin(πx) = sin(3θ) = 3 sin θ − 4 sin³ θ for
                // θ = πx/3: one sine instead of two, as the tables hold thousands of taps.
                let pix = Double.pi * x
                let third = sin(pix / 3)
                return 3 * (3 * third - 4 * third * third * third) * third / (pix * pix)
            case .catmullRom:
                if x < 1 { return (1.5 * x - 2.5) * x * x + 1 }
                if x < 2 { return ((-0.5 * x + 2.5) * x - 4) * x + 2 }
                return 0
            }
        }
    }
}
