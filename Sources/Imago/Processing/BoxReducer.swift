/// Shrinks RGBA8 rows by an integer factor, averaging each `factor` x `factor` block, one source
/// row at a time: the first step of a large reduction, as libvips' `shrink` and Pillow's `reduce`
/// (its `reducing_gap`) do before a Lanczos pass on the small image.
///
/// Only one row of sums and the reduced output exist, so a decoder can stream rows into it and
/// the full-size image never does. Blocks at the right and bottom edges that the source does not
/// fill average the pixels they have (as Pillow's `reduce`). Straight alpha is averaged weighted
/// by alpha (premultiplied), so transparent pixels' colours do not bleed; the result keeps the
/// source's alpha mode.
final class BoxReducer {
    let sourceWidth: Int
    let sourceHeight: Int
    let factor: Int
    let alphaMode: Bitmap.AlphaMode
    /// The reduced size: `ceil(source / factor)` on each axis.
    let width: Int
    let height: Int

    /// Per output pixel of the current band: sums of R, G, B (alpha-weighted for straight alpha)
    /// and A.
    private let sums: UnsafeMutablePointer<UInt32>
    private let output: UnsafeMutablePointer<UInt8>
    private var rowsInBand = 0
    private var rowsAdded = 0
    private var outputRow = 0
    private var finished = false

    /// The largest factor; a block of 256 x 256 alpha-weighted samples (255 * 255 each) still fits
    /// a `UInt32` sum.
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
    var allocatedBytes: Int { width * 4 * MemoryLayout<UInt32>.size + width * height * Bitmap.bytesPerPixel }

    /// - Precondition: sizes are positive, `factor` in 1...``maximumFactor``, and the reduced image
    ///   was checked against the limits.
    init(sourceWidth: Int, sourceHeight: Int, factor: Int, alphaMode: Bitmap.AlphaMode) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && (1...Self.maximumFactor).contains(factor))
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.factor = factor
        self.alphaMode = alphaMode
        width = (sourceWidth + factor - 1) / factor
        height = (sourceHeight + factor - 1) / factor
        sums = .allocate(capacity: width * 4)
        sums.initialize(repeating: 0, count: width * 4)
        output = .allocate(capacity: width * height * Bitmap.bytesPerPixel)
    }

    deinit {
        sums.deallocate()
        output.deallocate()
    }

    /// Adds the next source row (`sourceWidth` RGBA8 pixels).
    func add(row: UnsafePointer<UInt8>) {
        guard outputRow < height else { return }
        if factor == 1 {
            (output + outputRow * width * 4).update(from: row, count: width * 4)
            outputRow += 1
            return
        }
        let weighted = alphaMode == .straight
        var x = 0
        var cell = sums
        while x < sourceWidth {
            let end = min(x + factor, sourceWidth)
            var red: UInt32 = 0, green: UInt32 = 0, blue: UInt32 = 0, alpha: UInt32 = 0
            var pixel = row + x * 4
            var index = x
            if weighted {
                while index < end {
                    let a = UInt32(pixel[3])
                    red &+= UInt32(pixel[0]) &* a
                    green &+= UInt32(pixel[1]) &* a
                    blue &+= UInt32(pixel[2]) &* a
                    alpha &+= a
                    pixel += 4
                    index &+= 1
                }
            } else {
                while index < end {
                    red &+= UInt32(pixel[0])
                    green &+= UInt32(pixel[1])
                    blue &+= UInt32(pixel[2])
                    alpha &+= UInt32(pixel[3])
                    pixel += 4
                    index &+= 1
                }
            }
            cell[0] &+= red
            cell[1] &+= green
            cell[2] &+= blue
            cell[3] &+= alpha
            cell += 4
            x = end
        }
        rowsInBand += 1
        rowsAdded += 1
        if rowsInBand == factor || rowsAdded == sourceHeight { emitBand() }
    }

    /// The reduced bitmap. Rows never added (a source cut short) are transparent black.
    func finish() -> Bitmap {
        if rowsInBand > 0 { emitBand() }
        if !finished {
            let filled = outputRow * width * 4
            (output + filled).initialize(repeating: 0, count: width * height * 4 - filled)
            finished = true
        }
        let pixels = [UInt8](UnsafeBufferPointer(start: output, count: width * height * 4))
        return Bitmap(width: width, height: height, alphaMode: alphaMode, pixels: pixels)
    }

    /// Writes the averages of the current band as one output row and clears the sums.
    private func emitBand() {
        guard outputRow < height, rowsInBand > 0 else { return }
        let weighted = alphaMode == .straight
        var destination = output + outputRow * width * 4
        var cell = sums
        for x in 0..<width {
            let columns = UInt32(min(factor, sourceWidth - x * factor))
            let count = columns * UInt32(rowsInBand)
            let half = count / 2
            if weighted {
                let alpha = cell[3]
                if alpha == 0 {
                    destination[0] = 0
                    destination[1] = 0
                    destination[2] = 0
                    destination[3] = 0
                } else {
                    let halfAlpha = alpha / 2
                    destination[0] = UInt8(truncatingIfNeeded: (cell[0] + halfAlpha) / alpha)
                    destination[1] = UInt8(truncatingIfNeeded: (cell[1] + halfAlpha) / alpha)
                    destination[2] = UInt8(truncatingIfNeeded: (cell[2] + halfAlpha) / alpha)
                    destination[3] = UInt8(truncatingIfNeeded: (alpha + half) / count)
                }
            } else {
                destination[0] = UInt8(truncatingIfNeeded: (cell[0] + half) / count)
                destination[1] = UInt8(truncatingIfNeeded: (cell[1] + half) / count)
                destination[2] = UInt8(truncatingIfNeeded: (cell[2] + half) / count)
                destination[3] = UInt8(truncatingIfNeeded: (cell[3] + half) / count)
            }
            cell[0] = 0
            cell[1] = 0
            cell[2] = 0
            cell[3] = 0
            cell += 4
            destination += 4
        }
        outputRow += 1
        rowsInBand = 0
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
