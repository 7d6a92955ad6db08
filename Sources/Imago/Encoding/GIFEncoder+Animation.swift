import Foundation

extension GIFEncoder {
    /// Encodes `frames` (full canvases of one size, in play order, each with its display time) as
    /// an animated GIF89a that plays `loopCount` times (0: forever).
    ///
    /// Every frame is a whole canvas on the encoder's fixed palette (the global colour table),
    /// dithered as a still is, with a graphic control extension carrying its delay in hundredths
    /// of a second (rounded, at least 2: browsers play 0 and 1 as 100 ms) and, when any frame has
    /// transparency, the transparent index and disposal 2 (restore to background), so a frame's
    /// transparent pixels never show the frame before it. The loop count goes into the
    /// NETSCAPE2.0 application extension (its field counts repeats after the first play; a single
    /// play is written without it, as browsers read its absence).
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for no frames, an empty frame,
    ///   frames of different sizes, or a canvas wider or higher than GIF's 65,535.
    package func encodeAnimation(
        _ frames: [(bitmap: Bitmap, duration: Duration)], loopCount: Int
    ) throws(ImagePipeline.Error) -> Data {
        guard let first = frames.first?.bitmap else { throw failure("an animation needs at least one frame") }
        try checkNotEmpty(first)
        let (width, height) = (first.width, first.height)
        guard width <= 65_535, height <= 65_535 else {
            throw failure("GIF stores at most 65535 pixels a side; the canvas is \(width)x\(height)")
        }
        var indexed: [[UInt8]] = []
        var hasTransparency = false
        for (index, frame) in frames.enumerated() {
            guard frame.bitmap.width == width, frame.bitmap.height == height else {
                throw failure("frame \(index + 1) is \(frame.bitmap.width)x\(frame.bitmap.height), the canvas \(width)x\(height)")
            }
            let (indices, transparent) = Self.indexed(frame.bitmap)
            indexed.append(indices)
            hasTransparency = hasTransparency || transparent
        }
        var bytes: [UInt8] = Array("GIF89a".utf8)
        Self.append16(width, to: &bytes)
        Self.append16(height, to: &bytes)
        bytes += [0xF7, 0, 0]  // a global table of 256 colours, 8-bit colour resolution
        bytes += Self.palette
        if loopCount != 1 {
            let repeats = loopCount <= 0 ? 0 : min(loopCount - 1, 65_535)
            bytes += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01]
            Self.append16(repeats, to: &bytes)
            bytes.append(0)
        }
        for (index, indices) in indexed.enumerated() {
            let packed: UInt8 = hasTransparency ? (2 << 2) | 1 : (1 << 2)
            bytes += [0x21, 0xF9, 0x04, packed]
            Self.append16(Self.hundredths(frames[index].duration), to: &bytes)
            bytes += [hasTransparency ? Self.transparentIndex : 0, 0]
            bytes += [0x2C, 0, 0, 0, 0]
            Self.append16(width, to: &bytes)
            Self.append16(height, to: &bytes)
            bytes.append(0)  // no local table, not interlaced
            Self.appendImageData(indices, to: &bytes)
        }
        bytes.append(0x3B)
        return Data(bytes)
    }

    /// `duration` in GIF's hundredths of a second, rounded, within 2...65,535.
    static func hundredths(_ duration: Duration) -> Int {
        let milliseconds = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        return min(65_535, max(2, Int((milliseconds / 10).rounded())))
    }
}
