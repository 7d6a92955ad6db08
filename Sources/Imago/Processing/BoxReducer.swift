/// Shrinks RGB8 or RGBA8 rows by an integer factor, averaging each `factor` x `factor` block, one
/// source row at a time: the first step of a large reduction, as libvips' `shrink` and Pillow's
/// `reduce` (its `reducing_gap`) do before a Lanczos pass on the small image.
///
/// Only one row of column sums and the reduced output exist, so a decoder can stream rows into it
/// and the full-size image never does. Each row is added to the column sums with one flat,
/// vectorisable loop (16-bit sums for opaque rows, 32-bit alpha-weighted ones for straight alpha);
/// every `factor` rows the sums are folded across `factor` columns into one output row. Blocks at
/// the right and bottom edges that the source does not fill average the pixels they have (as
/// Pillow's `reduce`). Straight alpha is averaged weighted by alpha (premultiplied), so
/// transparent pixels' colours do not bleed; the result keeps the source's alpha mode and is
/// always RGBA8.
final class BoxReducer {
    /// The source, the factor and the reduced size.
    let shape: BoxReduction

    /// Straight alpha: per source column, the band's sums of R·A, G·A, B·A and A.
    private let weightedSums: UnsafeMutablePointer<UInt32>?
    /// Otherwise: per source byte, the band's sum (at most 256 rows of 255 fit 16 bits).
    private let plainSums: UnsafeMutablePointer<UInt16>?
    private let output: UnsafeMutablePointer<UInt8>
    private var rowsInBand = 0
    private var rowsAdded = 0
    private var outputRow = 0
    private var finished = false

    /// The largest factor; a block of 256 x 256 alpha-weighted samples (255 * 255 each) still fits
    /// a `UInt32` sum, and 256 rows of one byte a `UInt16`.
    static let maximumFactor = 256

    /// The factor that shrinks `width` x `height` towards `target` on its longer side while leaving
    /// at least twice the target for the Lanczos pass (Pillow's `reducing_gap = 2`): 1 when no
    /// reduction of 2 or more fits.
    static func factor(width: Int, height: Int, target: Int?) -> Int {
        guard let target, target > 0 else { return 1 }
        let longer = max(width, height)
        let (gap, overflow) = target.multipliedReportingOverflow(by: 2)
        if overflow || longer < gap { return 1 }
        return min(maximumFactor, max(1, longer / gap))
    }

    /// The bytes this reducer allocates: one row of sums and the reduced image.
    var allocatedBytes: Int {
        let sums = weightedSums != nil ? shape.sourceWidth * 4 * 4 : plainSums != nil ? shape.sourceWidth * shape.channels * 2 : 0
        return sums + shape.width * shape.height * Bitmap.bytesPerPixel
    }

    /// - Precondition: as ``BoxReduction/init(sourceWidth:sourceHeight:factor:alphaMode:channels:)``.
    init(sourceWidth: Int, sourceHeight: Int, factor: Int, alphaMode: Bitmap.AlphaMode, channels: Int = 4) {
        shape = BoxReduction(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, factor: factor, alphaMode: alphaMode, channels: channels)
        if factor == 1 {
            weightedSums = nil
            plainSums = nil
        } else if alphaMode == .straight {
            let sums = UnsafeMutablePointer<UInt32>.allocate(capacity: sourceWidth * 4)
            sums.initialize(repeating: 0, count: sourceWidth * 4)
            weightedSums = sums
            plainSums = nil
        } else {
            let sums = UnsafeMutablePointer<UInt16>.allocate(capacity: sourceWidth * channels)
            sums.initialize(repeating: 0, count: sourceWidth * channels)
            plainSums = sums
            weightedSums = nil
        }
        output = .allocate(capacity: shape.width * shape.height * Bitmap.bytesPerPixel)
    }

    deinit {
        weightedSums?.deallocate()
        plainSums?.deallocate()
        output.deallocate()
    }

    /// Adds the next source row (`sourceWidth` pixels of `channels` bytes).
    func add(row: UnsafePointer<UInt8>) {
        guard outputRow < shape.height else { return }
        if shape.factor == 1 {
            let destination = output + outputRow * shape.width * 4
            if shape.channels == 4 {
                destination.update(from: row, count: shape.width * 4)
            } else {
                Self.expand(rgb: row, to: destination, count: shape.width)
            }
            outputRow += 1
            return
        }
        if let sums = weightedSums {
            for x in 0..<shape.sourceWidth {
                let pixel = row + x &* 4
                let cell = sums + x &* 4
                let a = UInt32(pixel[3])
                cell[0] &+= UInt32(pixel[0]) &* a
                cell[1] &+= UInt32(pixel[1]) &* a
                cell[2] &+= UInt32(pixel[2]) &* a
                cell[3] &+= a
            }
        } else if let sums = plainSums {
            Self.accumulate(row, into: sums, count: shape.sourceWidth * shape.channels)
        }
        rowsInBand += 1
        rowsAdded += 1
        if rowsInBand == shape.factor || rowsAdded == shape.sourceHeight { emitBand() }
    }

    /// The reduced bitmap. Rows never added (a source cut short) are transparent black.
    func finish() -> Bitmap {
        if rowsInBand > 0 { emitBand() }
        if !finished {
            let filled = outputRow * shape.width * 4
            (output + filled).initialize(repeating: 0, count: shape.width * shape.height * 4 - filled)
            finished = true
        }
        let pixels = [UInt8](UnsafeBufferPointer(start: output, count: shape.width * shape.height * 4))
        // A source cut short has transparent rows, whatever its header said.
        let mode: Bitmap.AlphaMode = !isComplete && shape.alphaMode == .opaque ? .straight : shape.alphaMode
        return Bitmap(width: shape.width, height: shape.height, alphaMode: mode, pixels: pixels)
    }

    /// Whether every source row was added.
    var isComplete: Bool { shape.factor == 1 ? outputRow == shape.height : rowsAdded == shape.sourceHeight }

    /// Writes the averages of the current band as one output row and clears the sums.
    private func emitBand() {
        guard outputRow < shape.height, rowsInBand > 0 else { return }
        let destination = output + outputRow * shape.width * 4
        if let sums = weightedSums {
            for x in 0..<shape.width {
                let first = x * shape.factor
                let columns = min(shape.factor, shape.sourceWidth - first)
                let pixel = destination + x * 4
                if let average = BoxReduction.weightedAverage(of: sums + first * 4, columns: columns, rows: rowsInBand) {
                    for channel in 0..<4 { pixel[channel] = UInt8(truncatingIfNeeded: average[channel]) }
                } else {
                    pixel.initialize(repeating: 0, count: 4)
                }
            }
            sums.update(repeating: 0, count: shape.sourceWidth * 4)
        } else if let sums = plainSums {
            let channels = shape.channels
            for x in 0..<shape.width {
                let first = x * shape.factor
                let columns = min(shape.factor, shape.sourceWidth - first)
                var total: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
                var cell = sums + first * channels
                for _ in 0..<columns {
                    total.0 &+= UInt32(cell[0])
                    total.1 &+= UInt32(cell[1])
                    total.2 &+= UInt32(cell[2])
                    if channels == 4 { total.3 &+= UInt32(cell[3]) }
                    cell += channels
                }
                let count = UInt32(columns * rowsInBand)
                let half = count / 2
                let pixel = destination + x * 4
                pixel[0] = UInt8(truncatingIfNeeded: (total.0 + half) / count)
                pixel[1] = UInt8(truncatingIfNeeded: (total.1 + half) / count)
                pixel[2] = UInt8(truncatingIfNeeded: (total.2 + half) / count)
                pixel[3] = channels == 4 ? UInt8(truncatingIfNeeded: (total.3 + half) / count) : 255
            }
            sums.update(repeating: 0, count: shape.sourceWidth * channels)
        }
        outputRow += 1
        rowsInBand = 0
    }

    /// `sums[i] += row[i]` for `count` bytes, 16 at a time in SIMD registers (the compiler does
    /// not vectorise the plain loop by itself). ``DeepBoxReducer`` sums 16-bit samples byte by byte
    /// with it too.
    static func accumulate(_ row: UnsafePointer<UInt8>, into sums: UnsafeMutablePointer<UInt16>, count: Int) {
        let source = UnsafeRawPointer(row)
        let destination = UnsafeMutableRawPointer(sums)
        var index = 0
        while index &+ 16 <= count {
            let bytes = source.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self)
            let offset = index &* 2
            let total = destination.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt16>.self)
            destination.storeBytes(of: total &+ SIMD16<UInt16>(truncatingIfNeeded: bytes), toByteOffset: offset, as: SIMD16<UInt16>.self)
            index &+= 16
        }
        while index < count {
            sums[index] &+= UInt16(truncatingIfNeeded: row[index])
            index &+= 1
        }
    }

    /// Copies `count` RGB8 pixels as RGBA8 with alpha 255.
    static func expand(rgb: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int) {
        for x in 0..<count {
            let source = rgb + x &* 3
            let pixel = destination + x &* 4
            pixel[0] = source[0]
            pixel[1] = source[1]
            pixel[2] = source[2]
            pixel[3] = 255
        }
    }

    /// `bitmap` reduced by `factor` (itself when the factor is 1).
    static func reduce(_ bitmap: Bitmap, factor: Int) -> Bitmap {
        guard factor > 1, bitmap.width > 0, bitmap.height > 0 else { return bitmap }
        let reducer = BoxReducer(
            sourceWidth: bitmap.width, sourceHeight: bitmap.height, factor: min(factor, maximumFactor),
            alphaMode: bitmap.alphaMode)
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            guard let base = pixels.baseAddress else { return }
            for y in 0..<bitmap.height { reducer.add(row: base + y * bitmap.bytesPerRow) }
        }
        return reducer.finish()
    }
}
