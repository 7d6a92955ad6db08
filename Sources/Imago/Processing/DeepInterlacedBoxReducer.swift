#if os(Linux)
/// ``InterlacedBoxReducer`` at 16 bits a sample, for an Adam7 16-bit PNG converted through its
/// profile: each pass's pixels are added to the reduced image's block sums (four 64-bit sums a
/// reduced pixel: R, G, B, alpha-weighted for straight alpha, and A), and ``finish(through:)``
/// converts the block averages, still at 16 bits, as ``DeepBoxReducer`` does.
///
/// Only with a factor above 1, and used from 4 up: 46 bytes a reduced pixel (sums, 16-bit averages,
/// the bitmap) are under 3 a source pixel there, but more than the image as RGBA8 below it. Pixels are RGB16 or RGBA16, big-endian as PNG stores
/// them. Blocks that got no pixel (a decode cut short) are transparent black.
final class DeepInterlacedBoxReducer {
    /// The source, the factor and the reduced size (``BoxReduction/channels``: samples a pixel).
    let shape: BoxReduction

    private let sums: UnsafeMutablePointer<UInt64>
    /// The rows of each pass added so far.
    private var progress: Adam7Progress

    /// - Precondition: as ``BoxReduction/init(sourceWidth:sourceHeight:factor:alphaMode:channels:)``,
    ///   with `factor` above 1.
    init(sourceWidth: Int, sourceHeight: Int, factor: Int, alphaMode: Bitmap.AlphaMode, channels: Int) {
        precondition(factor > 1)
        shape = BoxReduction(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, factor: factor, alphaMode: alphaMode, channels: channels)
        progress = Adam7Progress(shape)
        let count = shape.width * shape.height * 4
        sums = .allocate(capacity: count)
        sums.initialize(repeating: 0, count: count)
    }

    deinit { sums.deallocate() }

    /// The bytes this reducer allocates: the sums, the 16-bit averages and the RGBA8 bitmap.
    var allocatedBytes: Int { shape.width * shape.height * (32 + shape.channels * 2 + Bitmap.bytesPerPixel) }

    /// Whether every pixel of the source was added.
    var isComplete: Bool { progress.isComplete }

    /// Adds row `passRow` of `pass` (0–6): `columns` pixels of `channels` big-endian samples. Rows
    /// of a pass must come in order; a row out of range is ignored.
    func add(row: UnsafeRawPointer, pass: Int, passRow: Int, columns: Int) {
        guard let layout = progress.add(pass: pass, passRow: passRow, columns: columns) else { return }
        let (y, count) = (layout.y, layout.count)
        let channels = shape.channels
        let weighted = shape.alphaMode == .straight
        let line = sums + (y / shape.factor) * shape.width * 4
        for index in 0..<count {
            let source = row + index &* channels &* 2
            let cell = line + ((layout.column + index * layout.columnStep) / shape.factor) &* 4
            let a: UInt64 = channels == 4 ? UInt64(Self.sample(source, 3)) : 65_535
            let weight: UInt64 = weighted ? a : 1
            cell[0] &+= UInt64(Self.sample(source, 0)) &* weight
            cell[1] &+= UInt64(Self.sample(source, 1)) &* weight
            cell[2] &+= UInt64(Self.sample(source, 2)) &* weight
            cell[3] &+= a
        }
    }

    /// The block averages converted through `transform` (built for ``ColorTransform/Layout/rgb16BE``
    /// when `channels` is 3, ``ColorTransform/Layout/rgba16BE`` when 4) into an RGBA8 bitmap.
    func finish(through transform: ColorTransform) -> Bitmap {
        let (columnCounts, rowCounts) = progress.blockCounts()
        let width = shape.width, height = shape.height, channels = shape.channels
        let weighted = shape.alphaMode == .straight
        var averages = [UInt16](repeating: 0, count: width * height * channels)
        var empty = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var count: UInt64 = 0
                for pass in 0..<7 { count &+= UInt64(columnCounts[pass][x]) &* UInt64(rowCounts[pass][y]) }
                let cell = sums + (y * width + x) * 4
                let at = (y * width + x) * channels
                // The colour's divisor: the summed alpha (weighted) or the pixel count.
                let divisor = weighted ? cell[3] : count
                guard count > 0, divisor > 0 else {
                    empty[y * width + x] = true
                    continue
                }
                for channel in 0..<3 {
                    averages[at + channel] = UInt16(truncatingIfNeeded: (cell[channel] + divisor / 2) / divisor).bigEndian
                }
                if channels == 4 { averages[at + 3] = UInt16(truncatingIfNeeded: (cell[3] + count / 2) / count).bigEndian }
            }
        }
        var pixels = [UInt8](repeating: 0, count: width * height * Bitmap.bytesPerPixel)
        averages.withUnsafeBytes { input in
            pixels.withUnsafeMutableBufferPointer { output in
                guard let from = input.baseAddress, let to = output.baseAddress else { return }
                transform.apply(
                    input: from, inputStride: width * channels * 2, output: to, outputStride: width * 4, width: width,
                    rows: height)
            }
        }
        for index in empty.indices where empty[index] {
            pixels[(index * 4)..<(index * 4 + 4)] = [0, 0, 0, 0]
        }
        let mode: Bitmap.AlphaMode = !isComplete && shape.alphaMode == .opaque ? .straight : shape.alphaMode
        return Bitmap(width: width, height: height, alphaMode: mode, pixels: pixels)
    }

    /// Sample `index` of the pixel at `pixel`, big-endian as stored.
    @inline(__always)
    private static func sample(_ pixel: UnsafeRawPointer, _ index: Int) -> UInt16 {
        UInt16(bigEndian: pixel.loadUnaligned(fromByteOffset: index &* 2, as: UInt16.self))
    }
}
#endif
