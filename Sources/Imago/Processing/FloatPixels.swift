import Foundation

/// RGBA as floats, premultiplied where the source has straight alpha (a premultiplied source
/// already is), for filters that mix neighbouring pixels: blur, sharpen.
struct FloatPixels {
    let width: Int
    let height: Int
    /// Whether the values were premultiplied here (the source had straight alpha), so
    /// ``bitmap(alphaMode:)`` divides them again.
    let premultiplied: Bool
    var values: [Float]

    init(_ bitmap: Bitmap) {
        width = bitmap.width
        height = bitmap.height
        premultiplied = bitmap.alphaMode == .straight
        var values = [Float](repeating: 0, count: bitmap.pixels.count)
        let premultiply = premultiplied
        bitmap.pixels.withUnsafeBufferPointer { source in
            values.withUnsafeMutableBufferPointer { target in
                var index = 0
                while index < source.count {
                    let alpha = Float(source[index + 3])
                    let factor: Float = premultiply ? alpha / 255 : 1
                    target[index] = Float(source[index]) * factor
                    target[index + 1] = Float(source[index + 1]) * factor
                    target[index + 2] = Float(source[index + 2]) * factor
                    target[index + 3] = alpha
                    index += 4
                }
            }
        }
        self.values = values
    }

    /// One plane of `width * height` values, as the red channel (the others 0), for filtering a
    /// map of scores.
    init(grid: [Float], width: Int, height: Int) {
        self.width = width
        self.height = height
        premultiplied = false
        var values = [Float](repeating: 0, count: grid.count * 4)
        for index in grid.indices { values[index * 4] = grid[index] }
        self.values = values
    }

    /// Back to 8-bit pixels in `alphaMode` (the source's).
    func bitmap(alphaMode: Bitmap.AlphaMode) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: values.count)
        let unpremultiply = premultiplied
        values.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                var index = 0
                while index < source.count {
                    let alpha = min(max(source[index + 3], 0), 255)
                    let factor: Float = unpremultiply ? (alpha > 0.5 ? 255 / alpha : 0) : 1
                    target[index] = Self.byte(source[index] * factor)
                    target[index + 1] = Self.byte(source[index + 1] * factor)
                    target[index + 2] = Self.byte(source[index + 2] * factor)
                    target[index + 3] = Self.byte(alpha)
                    index += 4
                }
            }
        }
        return Bitmap(width: width, height: height, alphaMode: alphaMode, pixels: pixels)
    }

    static func byte(_ value: Float) -> UInt8 {
        UInt8(min(max(value, 0), 255) + 0.5)
    }

    /// A Gaussian blur of `sigma` pixels, in place.
    mutating func blur(sigma: Double) {
        if sigma < 2 {
            let kernel = Self.kernel(sigma: sigma)
            convolveRows(kernel)
            convolveColumns(kernel)
        } else {
            for width in Self.boxWidths(sigma: sigma) {
                boxRows(radius: (width - 1) / 2)
                boxColumns(radius: (width - 1) / 2)
            }
        }
    }

    /// The normalised Gaussian, from -radius to radius, cut at three sigmas.
    static func kernel(sigma: Double) -> [Float] {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var weights = (-radius...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        let total = weights.reduce(0, +)
        for index in weights.indices { weights[index] /= total }
        return weights
    }

    /// Three odd box widths whose successive application has variance `sigma²` (Kovesi's choice).
    static func boxWidths(sigma: Double) -> [Int] {
        let passes = 3.0
        let ideal = (12 * sigma * sigma / passes + 1).squareRoot()
        var lower = Int(ideal.rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        let upper = lower + 2
        let lowerDouble = Double(lower)
        let lowerCount = Int(
            ((12 * sigma * sigma - passes * lowerDouble * lowerDouble - 4 * passes * lowerDouble - 3 * passes)
                / (-4 * lowerDouble - 4)).rounded())
        return (0..<3).map { $0 < lowerCount ? lower : upper }
    }

    /// Each row convolved with `kernel` (odd length), edges repeated.
    private mutating func convolveRows(_ kernel: [Float]) {
        let radius = kernel.count / 2
        let (width, height) = (self.width, self.height)
        var row = [Float](repeating: 0, count: width * 4)
        values.withUnsafeMutableBufferPointer { values in
            for y in 0..<height {
                let base = y * width * 4
                for x in 0..<width {
                    var sum: (Float, Float, Float, Float) = (0, 0, 0, 0)
                    for tap in 0..<kernel.count {
                        let column = min(max(x + tap - radius, 0), width - 1)
                        let index = base + column * 4
                        let weight = kernel[tap]
                        sum.0 += values[index] * weight
                        sum.1 += values[index + 1] * weight
                        sum.2 += values[index + 2] * weight
                        sum.3 += values[index + 3] * weight
                    }
                    (row[x * 4], row[x * 4 + 1], row[x * 4 + 2], row[x * 4 + 3]) = sum
                }
                for index in 0..<(width * 4) { values[base + index] = row[index] }
            }
        }
    }

    /// Each column convolved with `kernel`, row by row (rows stay in cache), edges repeated.
    private mutating func convolveColumns(_ kernel: [Float]) {
        let radius = kernel.count / 2
        let rowLength = width * 4
        let source = values
        let height = self.height
        values.withUnsafeMutableBufferPointer { target in
            source.withUnsafeBufferPointer { source in
                for y in 0..<height {
                    let base = y * rowLength
                    for index in 0..<rowLength { target[base + index] = 0 }
                    for tap in 0..<kernel.count {
                        let sourceBase = min(max(y + tap - radius, 0), height - 1) * rowLength
                        let weight = kernel[tap]
                        for index in 0..<rowLength { target[base + index] += source[sourceBase + index] * weight }
                    }
                }
            }
        }
    }

    /// Each row averaged over a window of `2 * radius + 1` pixels (a running sum), edges repeated.
    private mutating func boxRows(radius: Int) {
        guard radius > 0 else { return }
        let (width, height) = (self.width, self.height)
        let scale = 1 / Float(2 * radius + 1)
        var row = [Float](repeating: 0, count: width * 4)
        values.withUnsafeMutableBufferPointer { values in
            for y in 0..<height {
                let base = y * width * 4
                for channel in 0..<4 {
                    var sum: Float = 0
                    for offset in -radius...radius { sum += values[base + min(max(offset, 0), width - 1) * 4 + channel] }
                    for x in 0..<width {
                        row[x * 4 + channel] = sum * scale
                        let leaving = min(max(x - radius, 0), width - 1)
                        let entering = min(x + radius + 1, width - 1)
                        sum += values[base + entering * 4 + channel] - values[base + leaving * 4 + channel]
                    }
                }
                for index in 0..<(width * 4) { values[base + index] = row[index] }
            }
        }
    }

    /// Each column averaged over `2 * radius + 1` rows: one running sum per column, row by row.
    private mutating func boxColumns(radius: Int) {
        guard radius > 0 else { return }
        let rowLength = width * 4
        let height = self.height
        let scale = 1 / Float(2 * radius + 1)
        let source = values
        var sums = [Float](repeating: 0, count: rowLength)
        values.withUnsafeMutableBufferPointer { target in
            source.withUnsafeBufferPointer { source in
                for offset in -radius...radius {
                    let base = min(max(offset, 0), height - 1) * rowLength
                    for index in 0..<rowLength { sums[index] += source[base + index] }
                }
                for y in 0..<height {
                    let base = y * rowLength
                    let leaving = min(max(y - radius, 0), height - 1) * rowLength
                    let entering = min(y + radius + 1, height - 1) * rowLength
                    for index in 0..<rowLength {
                        target[base + index] = sums[index] * scale
                        sums[index] += source[entering + index] - source[leaving + index]
                    }
                }
            }
        }
    }
}
