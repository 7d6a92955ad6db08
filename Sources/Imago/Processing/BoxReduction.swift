/// What a box reduction shrinks and to what, shared by ``BoxReducer`` (rows in order) and
/// ``InterlacedBoxReducer`` (Adam7 passes): the source's size, alpha mode and bytes per pixel, the
/// integer factor, and the reduced size, `ceil(source / factor)` on each axis.
struct BoxReduction {
    let sourceWidth: Int
    let sourceHeight: Int
    let factor: Int
    let alphaMode: Bitmap.AlphaMode
    /// Samples per source pixel: 3 (RGB, opaque) or 4 (RGBA); bytes for ``BoxReducer``, 16-bit
    /// samples for `DeepBoxReducer` (Linux).
    let channels: Int
    /// The reduced size.
    let width: Int
    let height: Int

    /// - Precondition: sizes are positive, `factor` in 1...``BoxReducer/maximumFactor``, `channels`
    ///   3 (only for opaque rows) or 4, and the reduced image was checked against the limits.
    init(sourceWidth: Int, sourceHeight: Int, factor: Int, alphaMode: Bitmap.AlphaMode, channels: Int) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && (1...BoxReducer.maximumFactor).contains(factor))
        precondition(channels == 4 || (channels == 3 && alphaMode == .opaque))
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.factor = factor
        self.alphaMode = alphaMode
        self.channels = channels
        width = (sourceWidth + factor - 1) / factor
        height = (sourceHeight + factor - 1) / factor
    }

    /// The average of `columns` cells from `cell` over `rows` rows, each cell four sums (red,
    /// green and blue weighted by alpha, then alpha), rounded to the nearest: colour as sums over
    /// alpha, alpha as its sum over the cells. `nil` when every pixel was transparent (alpha 0):
    /// no colour to give. ``BoxReducer`` sums in 32 bits for 8-bit samples, `DeepBoxReducer` in 64
    /// for 16-bit ones.
    @inline(__always)
    static func weightedAverage<Sum: FixedWidthInteger & UnsignedInteger>(
        of cell: UnsafePointer<Sum>, columns: Int, rows: Int
    ) -> SIMD4<Sum>? {
        var total = SIMD4<Sum>.zero
        var cell = cell
        for _ in 0..<columns {
            total &+= SIMD4(cell[0], cell[1], cell[2], cell[3])
            cell += 4
        }
        let alpha = total[3]
        guard alpha > 0 else { return nil }
        let count = Sum(truncatingIfNeeded: columns &* rows)
        let halfAlpha = alpha / 2
        return SIMD4((total[0] + halfAlpha) / alpha, (total[1] + halfAlpha) / alpha, (total[2] + halfAlpha) / alpha, (alpha + count / 2) / count)
    }
}
