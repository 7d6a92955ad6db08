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
}
