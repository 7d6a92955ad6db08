import Foundation

extension GIFEncoder {
    /// Encodes `frames` (full canvases of one size, in play order, each with its display time) as
    /// an animated GIF89a that plays `loopCount` times (0: forever).
    ///
    /// Every frame is mapped onto the encoder's fixed palette (the global colour table), dithered
    /// as a still is, with a graphic control extension carrying its delay in hundredths of a
    /// second (rounded, at least 2: browsers play 0 and 1 as 100 ms). In an opaque animation each
    /// later frame holds only the rectangle of pixels that changed, unchanged ones transparent,
    /// drawn over the frame before (disposal 1), when that compresses smaller than the whole
    /// frame; when any frame has transparency, every frame is
    /// whole with disposal 2 (restore to background), so its transparent pixels never show the
    /// frame before it. The loop count goes into the
    /// NETSCAPE2.0 application extension (its field counts repeats after the first play; a single
    /// play is written without it, as browsers read its absence).
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for no frames, an empty frame,
    ///   frames of different sizes, or a canvas wider or higher than GIF's 65,535.
    package func encodeAnimation(
        _ frames: [(bitmap: Bitmap, duration: Duration)], loopCount: Int
    ) throws(ImagePipeline.Error) -> Data {
        let (width, height) = try animationCanvas(frames, maximumSide: 65_535)
        var indexed: [[UInt8]] = []
        var hasTransparency = false
        for frame in frames {
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
            // An opaque animation's later frames hold only what changed: the rectangle around the
            // pixels whose index differs from the frame before, unchanged ones in it transparent,
            // drawn over that frame (disposal 1). Frames with transparency are written whole over
            // a cleared canvas (disposal 2).
            var rectangle = Rectangle(x: 0, y: 0, width: width, height: height)
            var data: [UInt8] = []
            Self.appendImageData(indices, to: &data)
            if !hasTransparency, index > 0 {
                // Dithering noise can make the difference compress worse than the whole frame
                // (most pixels change when things move): the smaller of the two is written.
                let (changed, pixels) = Self.difference(indices, from: indexed[index - 1], width: width, height: height)
                var differenceData: [UInt8] = []
                Self.appendImageData(pixels, to: &differenceData)
                if differenceData.count < data.count { (rectangle, data) = (changed, differenceData) }
            }
            let packed: UInt8 = hasTransparency ? (2 << 2) | 1 : (1 << 2) | (index > 0 ? 1 : 0)
            bytes += [0x21, 0xF9, 0x04, packed]
            Self.append16(Self.hundredths(frames[index].duration), to: &bytes)
            bytes += [hasTransparency || index > 0 ? Self.transparentIndex : 0, 0]
            bytes.append(0x2C)
            Self.append16(rectangle.x, to: &bytes)
            Self.append16(rectangle.y, to: &bytes)
            Self.append16(rectangle.width, to: &bytes)
            Self.append16(rectangle.height, to: &bytes)
            bytes.append(0)  // no local table, not interlaced
            bytes += data
        }
        bytes.append(0x3B)
        return Data(bytes)
    }

    /// A frame's rectangle on the canvas.
    struct Rectangle: Equatable {
        var x: Int, y: Int, width: Int, height: Int
    }

    /// The smallest rectangle holding every pixel of `current` whose index differs from
    /// `previous` (one pixel when none does), with the pixels inside it that did not change set
    /// to the transparent index.
    static func difference(
        _ current: [UInt8], from previous: [UInt8], width: Int, height: Int
    ) -> (rectangle: Rectangle, pixels: [UInt8]) {
        var (left, top, right, bottom) = (width, height, -1, -1)
        for y in 0..<height {
            for x in 0..<width where current[y * width + x] != previous[y * width + x] {
                (left, right) = (min(left, x), max(right, x))
                (top, bottom) = (min(top, y), max(bottom, y))
            }
        }
        guard right >= 0 else { return (Rectangle(x: 0, y: 0, width: 1, height: 1), [transparentIndex]) }
        let rectangle = Rectangle(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
        var pixels: [UInt8] = []
        pixels.reserveCapacity(rectangle.width * rectangle.height)
        for y in top...bottom {
            for x in left...right {
                let index = y * width + x
                pixels.append(current[index] == previous[index] ? transparentIndex : current[index])
            }
        }
        return (rectangle, pixels)
    }

    /// `duration` in GIF's hundredths of a second, rounded, within 2...65,535.
    static func hundredths(_ duration: Duration) -> Int {
        let milliseconds = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        return min(65_535, max(2, Int((milliseconds / 10).rounded())))
    }
}
