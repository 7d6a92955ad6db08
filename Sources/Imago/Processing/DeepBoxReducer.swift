#if os(Linux)
/// ``BoxReducer`` at 16 bits a sample, for a 16-bit PNG whose colour goes through its profile: the
/// rows are averaged at their full precision before the transform, so a thumbnail converts (and
/// holds) only the reduced image, and a wide-gamut or linear-light gradient is not banded by
/// 8-bit values before the profile's curves stretch them. libvips shrinks a 16-bit image the
/// same way, then converts it.
///
/// Rows are RGB16 or RGBA16 with big-endian samples, as PNG stores them and as
/// ``ColorTransform/Layout/rgb16BE`` and ``ColorTransform/Layout/rgba16BE`` read them; the reduced
/// image is kept in that layout until ``finish(through:)`` converts it to an RGBA8 bitmap. Averages
/// as ``BoxReducer``'s: blocks at the right and bottom edges average the pixels they have, and
/// straight alpha is averaged weighted by alpha. Opaque rows are summed byte by byte, as
/// ``BoxReducer`` sums 8-bit rows (16-bit sums of each sample's high and low byte, which the band
/// folds into `256 * high + low`), so the hot loop is the same vectorised one, whatever the
/// byte order; straight alpha takes 64-bit alpha-weighted sums.
final class DeepBoxReducer {
    /// The source, the factor and the reduced size (``BoxReduction/channels``: samples a pixel).
    let shape: BoxReduction

    /// Straight alpha: per source column, the band's sums of R·A, G·A, B·A and A.
    private let weightedSums: UnsafeMutablePointer<UInt64>?
    /// Otherwise: per source byte (high, low of each sample), the band's sum.
    private let plainSums: UnsafeMutablePointer<UInt16>?
    /// The reduced image, `shape.channels` big-endian samples a pixel.
    private let output: UnsafeMutablePointer<UInt16>
    private var rowsInBand = 0
    private var rowsAdded = 0
    private var outputRow = 0

    /// - Precondition: as ``BoxReduction/init(sourceWidth:sourceHeight:factor:alphaMode:channels:)``.
    init(sourceWidth: Int, sourceHeight: Int, factor: Int, alphaMode: Bitmap.AlphaMode, channels: Int) {
        shape = BoxReduction(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, factor: factor, alphaMode: alphaMode, channels: channels)
        if alphaMode == .straight {
            let sums = UnsafeMutablePointer<UInt64>.allocate(capacity: sourceWidth * 4)
            sums.initialize(repeating: 0, count: sourceWidth * 4)
            weightedSums = sums
            plainSums = nil
        } else {
            let sums = UnsafeMutablePointer<UInt16>.allocate(capacity: sourceWidth * channels * 2)
            sums.initialize(repeating: 0, count: sourceWidth * channels * 2)
            plainSums = sums
            weightedSums = nil
        }
        let count = shape.width * shape.height * channels
        output = .allocate(capacity: count)
        output.initialize(repeating: 0, count: count)
    }

    deinit {
        weightedSums?.deallocate()
        plainSums?.deallocate()
        output.deallocate()
    }

    /// The bytes this reducer allocates: one row of sums, the reduced 16-bit image, and the RGBA8
    /// bitmap ``finish(through:)`` converts it into.
    var allocatedBytes: Int {
        let sums = weightedSums != nil ? shape.sourceWidth * 4 * 8 : shape.sourceWidth * shape.channels * 4
        return sums + shape.width * shape.height * (shape.channels * 2 + Bitmap.bytesPerPixel)
    }

    /// Whether every source row was added.
    var isComplete: Bool { rowsAdded == shape.sourceHeight }

    /// Adds the next source row: `sourceWidth` pixels of `channels` big-endian 16-bit samples.
    func add(row: UnsafeRawPointer) {
        guard outputRow < shape.height else { return }
        if let sums = weightedSums {
            for x in 0..<shape.sourceWidth {
                let pixel = row + x &* 8
                let cell = sums + x &* 4
                let a = UInt64(Self.sample(pixel, 3))
                cell[0] &+= UInt64(Self.sample(pixel, 0)) &* a
                cell[1] &+= UInt64(Self.sample(pixel, 1)) &* a
                cell[2] &+= UInt64(Self.sample(pixel, 2)) &* a
                cell[3] &+= a
            }
        } else if let sums = plainSums {
            BoxReducer.accumulate(
                row.assumingMemoryBound(to: UInt8.self), into: sums, count: shape.sourceWidth * shape.channels * 2)
        }
        rowsInBand += 1
        rowsAdded += 1
        if rowsInBand == shape.factor || rowsAdded == shape.sourceHeight { emitBand() }
    }

    /// The reduced image converted through `transform` (built for ``ColorTransform/Layout/rgb16BE``
    /// when `channels` is 3, ``ColorTransform/Layout/rgba16BE`` when 4) into an RGBA8 bitmap. Rows no
    /// source row reached (a source cut short) are transparent black.
    func finish(through transform: ColorTransform) -> Bitmap {
        if rowsInBand > 0 { emitBand() }
        let width = shape.width, height = shape.height, converted = outputRow
        var pixels = [UInt8](repeating: 0, count: width * height * Bitmap.bytesPerPixel)
        if converted > 0 {
            pixels.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                transform.apply(
                    input: output, inputStride: width * shape.channels * 2, output: base, outputStride: width * 4,
                    width: width, rows: converted)
            }
        }
        // A source cut short has transparent rows, whatever its header said.
        let mode: Bitmap.AlphaMode = !isComplete && shape.alphaMode == .opaque ? .straight : shape.alphaMode
        return Bitmap(width: width, height: height, alphaMode: mode, pixels: pixels)
    }

    /// Sample `index` of the pixel at `pixel`, big-endian as stored.
    @inline(__always)
    private static func sample(_ pixel: UnsafeRawPointer, _ index: Int) -> UInt16 {
        UInt16(bigEndian: pixel.loadUnaligned(fromByteOffset: index &* 2, as: UInt16.self))
    }

    /// Writes the averages of the current band as one output row (big-endian) and clears the sums.
    private func emitBand() {
        guard outputRow < shape.height, rowsInBand > 0 else { return }
        let channels = shape.channels
        let destination = output + outputRow * shape.width * channels
        if let sums = weightedSums {
            for x in 0..<shape.width {
                let first = x * shape.factor
                let columns = min(shape.factor, shape.sourceWidth - first)
                let pixel = destination + x * 4
                guard let average = BoxReduction.weightedAverage(of: sums + first * 4, columns: columns, rows: rowsInBand) else {
                    pixel.update(repeating: 0, count: 4)
                    continue
                }
                for channel in 0..<4 { pixel[channel] = UInt16(truncatingIfNeeded: average[channel]).bigEndian }
            }
            sums.update(repeating: 0, count: shape.sourceWidth * 4)
        } else if let sums = plainSums {
            for x in 0..<shape.width {
                let first = x * shape.factor
                let columns = min(shape.factor, shape.sourceWidth - first)
                let count = UInt64(columns * rowsInBand)
                let pixel = destination + x * channels
                for channel in 0..<channels {
                    var high: UInt64 = 0, low: UInt64 = 0
                    var cell = sums + (first * channels + channel) * 2
                    for _ in 0..<columns {
                        high &+= UInt64(cell[0])
                        low &+= UInt64(cell[1])
                        cell += channels * 2
                    }
                    let total = high &* 256 &+ low
                    pixel[channel] = UInt16(truncatingIfNeeded: (total + count / 2) / count).bigEndian
                }
            }
            sums.update(repeating: 0, count: shape.sourceWidth * channels * 2)
        }
        outputRow += 1
        rowsInBand = 0
    }
}
#endif
