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
        // Byte to float by lookup: the conversion itself is slow in a debug build.
        let byteValues = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { byteValues.deallocate() }
        for value in 0..<256 { byteValues[value] = Float(value) }

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
                            let count = vertical.count[y]
                            if nextRow < first { nextRow = first }
                            while nextRow < first + count {
                                loadRow(
                                    input + nextRow * source.bytesPerRow, count: source.width,
                                    premultiply: premultiply, byteValues: byteValues, into: sourceRow)
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
        _ input: UnsafePointer<UInt8>, count: Int, premultiply: Bool, byteValues: UnsafePointer<Float>,
        into destination: UnsafeMutablePointer<Float>
    ) {
        var index = 0
        let end = count * 4
        if premultiply {
            while index < end {
                let alpha = byteValues[Int(input[index + 3])]
                let scale = alpha / 255
                destination[index] = byteValues[Int(input[index])] * scale
                destination[index + 1] = byteValues[Int(input[index + 1])] * scale
                destination[index + 2] = byteValues[Int(input[index + 2])] * scale
                destination[index + 3] = alpha
                index += 4
            }
        } else {
            while index < end {
                destination[index] = byteValues[Int(input[index])]
                index += 1
            }
        }
    }

    /// Writes `count` premultiplied float pixels as RGBA8 in `alphaMode`, rounded and clamped.
    private static func store(
        _ row: UnsafePointer<Float>, count: Int, alphaMode: Bitmap.AlphaMode, into output: UnsafeMutablePointer<UInt8>
    ) {
        let opaque = alphaMode == .opaque, straight = alphaMode == .straight
        var index = 0
        let end = count * 4
        while index < end {
            var red = row[index], green = row[index + 1], blue = row[index + 2], alpha = row[index + 3]
            if opaque {
                alpha = 255
            } else if straight {
                if alpha > 255 { alpha = 255 }
                if alpha < 0.5 {
                    (red, green, blue, alpha) = (0, 0, 0, 0)
                } else {
                    let scale = 255 / alpha
                    red *= scale
                    green *= scale
                    blue *= scale
                }
            } else {
                // Premultiplied: no colour may exceed its alpha.
                alpha = alpha < 0 ? 0 : alpha > 255 ? 255 : alpha
                red = red < 0 ? 0 : red > alpha ? alpha : red
                green = green < 0 ? 0 : green > alpha ? alpha : green
                blue = blue < 0 ? 0 : blue > alpha ? alpha : blue
            }
            output[index] = byte(red)
            output[index + 1] = byte(green)
            output[index + 2] = byte(blue)
            output[index + 3] = byte(alpha)
            index += 4
        }
    }

    /// `value` clamped to 0...255 and rounded to the nearest byte.
    private static func byte(_ value: Float) -> UInt8 {
        UInt8((value < 0 ? 0 : value > 255 ? 255 : value) + 0.5)
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

        /// Calls `body` with the tables as raw pointers, for the inner loops.
        func withUnsafeTable<Result>(_ body: (Table) -> Result) -> Result {
            first.withUnsafeBufferPointer { first in
                count.withUnsafeBufferPointer { count in
                    weights.withUnsafeBufferPointer { weights in
                        body(
                            Table(
                                first: first.baseAddress!, count: count.baseAddress!, weights: weights.baseAddress!,
                                stride: stride, destinationCount: first.count))
                    }
                }
            }
        }
    }

    /// ``Contributions`` seen through raw pointers, valid only inside
    /// ``Contributions/withUnsafeTable(_:)``.
    struct Table {
        let first: UnsafePointer<Int>
        let count: UnsafePointer<Int>
        let weights: UnsafePointer<Float>
        let stride: Int
        let destinationCount: Int

        /// Filters one row of RGBA floats along this axis into `destinationCount` pixels.
        ///
        /// Two destination pixels are summed side by side: each still adds its taps in order, but
        /// the two chains of additions are independent, so an optimised build overlaps them.
        func filter(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>) {
            var output = destination
            var index = 0
            while index < destinationCount {
                let pair = index &+ 1 < destinationCount
                var weightA = weights + index &* stride
                var pixelA = source + first[index] &* 4
                let endA = weightA + count[index]
                var weightB = pair ? weightA + stride : endA
                var pixelB = pair ? source + first[index &+ 1] &* 4 : pixelA
                let endB = pair ? weightB + count[index &+ 1] : endA
                var redA: Float = 0, greenA: Float = 0, blueA: Float = 0, alphaA: Float = 0
                var redB: Float = 0, greenB: Float = 0, blueB: Float = 0, alphaB: Float = 0
                while weightA < endA && weightB < endB {
                    let a = weightA.pointee, b = weightB.pointee
                    redA += pixelA[0] * a
                    redB += pixelB[0] * b
                    greenA += pixelA[1] * a
                    greenB += pixelB[1] * b
                    blueA += pixelA[2] * a
                    blueB += pixelB[2] * b
                    alphaA += pixelA[3] * a
                    alphaB += pixelB[3] * b
                    pixelA += 4
                    pixelB += 4
                    weightA += 1
                    weightB += 1
                }
                while weightA < endA {
                    redA += pixelA[0] * weightA.pointee
                    greenA += pixelA[1] * weightA.pointee
                    blueA += pixelA[2] * weightA.pointee
                    alphaA += pixelA[3] * weightA.pointee
                    pixelA += 4
                    weightA += 1
                }
                while weightB < endB {
                    redB += pixelB[0] * weightB.pointee
                    greenB += pixelB[1] * weightB.pointee
                    blueB += pixelB[2] * weightB.pointee
                    alphaB += pixelB[3] * weightB.pointee
                    pixelB += 4
                    weightB += 1
                }
                output[0] = redA
                output[1] = greenA
                output[2] = blueA
                output[3] = alphaA
                if pair {
                    output[4] = redB
                    output[5] = greenB
                    output[6] = blueB
                    output[7] = alphaB
                }
                output += 8
                index &+= 2
            }
        }

        /// Filters along this (vertical) axis: the weighted sum, for destination row `row`, of
        /// the filtered source rows held in `ring` (source row `r` at slot `r % capacity`).
        func combine(
            ring: UnsafePointer<Float>, capacity: Int, rowLength: Int, at row: Int,
            into accumulator: UnsafeMutablePointer<Float>
        ) {
            let first = self.first[row]
            let weights = self.weights + row * stride
            let taps = count[row]
            var tap = 0
            while tap < taps {
                let weight = weights[tap]
                let source = ring + ((first + tap) % capacity) * rowLength
                var index = 0
                if tap == 0 {
                    while index < rowLength {
                        accumulator[index] = source[index] * weight
                        index += 1
                    }
                } else {
                    while index < rowLength {
                        accumulator[index] += source[index] * weight
                        index += 1
                    }
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
