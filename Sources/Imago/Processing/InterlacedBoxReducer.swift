/// ``BoxReducer``'s block averages for an Adam7-interlaced PNG, whose rows arrive pass by pass,
/// each pass holding every 8th, 4th or 2nd pixel of some rows: no row is complete before the last
/// pass, so rows cannot be streamed into a band.
///
/// Instead every pixel is added straight to the sums of the output block it falls in, so what is
/// held is the reduced image's sums (16 bytes per reduced pixel, a quarter of the source's RGBA
/// at a factor of 4 and 1/64 at 16) and never the full image; with a factor of 1 the pixels are
/// written into the result itself. Block counts are worked out from the passes at the end, so a
/// decode cut short (lenient) averages the pixels that arrived and leaves blocks that got none
/// transparent.
final class InterlacedBoxReducer {
    /// The source, the factor and the reduced size.
    let shape: BoxReduction

    /// Per output pixel: R, G, B (alpha-weighted for straight alpha) and A sums; nil at factor 1.
    private let sums: UnsafeMutablePointer<UInt32>?
    private let output: UnsafeMutablePointer<UInt8>
    /// The rows of each pass added so far.
    private var progress: Adam7Progress

    /// The bytes this reducer allocates.
    var allocatedBytes: Int { shape.width * shape.height * (Bitmap.bytesPerPixel + (sums == nil ? 0 : 16)) }

    /// - Precondition: as ``BoxReduction/init(sourceWidth:sourceHeight:factor:alphaMode:channels:)``.
    init(sourceWidth: Int, sourceHeight: Int, factor: Int, alphaMode: Bitmap.AlphaMode, channels: Int = 4) {
        shape = BoxReduction(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, factor: factor, alphaMode: alphaMode, channels: channels)
        progress = Adam7Progress(shape)
        let count = shape.width * shape.height * 4
        output = .allocate(capacity: count)
        output.initialize(repeating: 0, count: count)
        if factor == 1 {
            sums = nil
        } else {
            let sums = UnsafeMutablePointer<UInt32>.allocate(capacity: count)
            sums.initialize(repeating: 0, count: count)
            self.sums = sums
        }
    }

    deinit {
        sums?.deallocate()
        output.deallocate()
    }

    /// Adds row `passRow` of `pass` (0–6): `columns` pixels of `channels` bytes. Rows of a pass
    /// must come in order; a row out of range is ignored.
    func add(row: UnsafePointer<UInt8>, pass: Int, passRow: Int, columns: Int) {
        guard let layout = progress.add(pass: pass, passRow: passRow, columns: columns) else { return }
        let (y, count) = (layout.y, layout.count)
        let channels = shape.channels
        let weighted = shape.alphaMode == .straight
        guard let sums else {
            let line = output + y * shape.width * 4
            for index in 0..<count {
                let source = row + index &* channels
                let pixel = line + (layout.column + index * layout.columnStep) &* 4
                pixel[0] = source[0]
                pixel[1] = source[1]
                pixel[2] = source[2]
                pixel[3] = channels == 4 ? source[3] : 255
            }
            return
        }
        let line = sums + (y / shape.factor) * shape.width * 4
        for index in 0..<count {
            let source = row + index &* channels
            let cell = line + ((layout.column + index * layout.columnStep) / shape.factor) &* 4
            let a: UInt32 = channels == 4 ? UInt32(source[3]) : 255
            if weighted {
                cell[0] &+= UInt32(source[0]) &* a
                cell[1] &+= UInt32(source[1]) &* a
                cell[2] &+= UInt32(source[2]) &* a
            } else {
                cell[0] &+= UInt32(source[0])
                cell[1] &+= UInt32(source[1])
                cell[2] &+= UInt32(source[2])
            }
            cell[3] &+= a
        }
    }

    /// Whether every pixel of the source was added.
    var isComplete: Bool { progress.isComplete }

    /// The reduced bitmap; pixels or blocks that got no source pixel are transparent black.
    func finish() -> Bitmap {
        let mode: Bitmap.AlphaMode = !isComplete && shape.alphaMode == .opaque ? .straight : shape.alphaMode
        if let sums {
            let (columnCounts, rowCounts) = progress.blockCounts()
            let weighted = shape.alphaMode == .straight
            for y in 0..<shape.height {
                for x in 0..<shape.width {
                    var count: UInt32 = 0
                    for pass in 0..<7 { count &+= columnCounts[pass][x] &* rowCounts[pass][y] }
                    let cell = sums + (y * shape.width + x) * 4
                    let pixel = output + (y * shape.width + x) * 4
                    guard count > 0 else { continue }  // stays transparent
                    let half = count / 2
                    if weighted {
                        let alpha = cell[3]
                        guard alpha > 0 else { continue }
                        pixel[0] = UInt8(truncatingIfNeeded: (cell[0] + alpha / 2) / alpha)
                        pixel[1] = UInt8(truncatingIfNeeded: (cell[1] + alpha / 2) / alpha)
                        pixel[2] = UInt8(truncatingIfNeeded: (cell[2] + alpha / 2) / alpha)
                        pixel[3] = UInt8(truncatingIfNeeded: (alpha + half) / count)
                    } else {
                        pixel[0] = UInt8(truncatingIfNeeded: (cell[0] + half) / count)
                        pixel[1] = UInt8(truncatingIfNeeded: (cell[1] + half) / count)
                        pixel[2] = UInt8(truncatingIfNeeded: (cell[2] + half) / count)
                        pixel[3] = UInt8(truncatingIfNeeded: (cell[3] + half) / count)
                    }
                }
            }
        }
        let pixels = [UInt8](UnsafeBufferPointer(start: output, count: shape.width * shape.height * 4))
        return Bitmap(width: shape.width, height: shape.height, alphaMode: mode, pixels: pixels)
    }
}
