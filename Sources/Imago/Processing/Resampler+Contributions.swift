import Foundation

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
}
