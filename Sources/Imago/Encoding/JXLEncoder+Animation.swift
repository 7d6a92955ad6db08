#if os(Linux)
import CImagoCodecs
import Foundation

extension JXLEncoder {
    /// Encodes `frames` (full canvases of one size, in play order, each with its display time) as
    /// an animated JPEG XL that plays `loopCount` times (0: forever): every frame whole, lossy at
    /// ``quality`` or lossless, with ``effort``, durations in milliseconds (1,000 ticks a second),
    /// one channel layout for all (grey only if every frame is; alpha if any frame has some).
    /// One frame is a still image. Linux only: on Apple platforms write GIF.
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for no frames, frames of
    ///   different sizes, or libjxl's refusal.
    package func encodeAnimation(
        _ frames: [(bitmap: Bitmap, duration: Duration)], loopCount: Int
    ) throws(ImagePipeline.Error) -> Data {
        guard let first = frames.first?.bitmap else { throw failure("an animation needs at least one frame") }
        try checkNotEmpty(first)
        guard let width = UInt32(exactly: first.width), let height = UInt32(exactly: first.height) else {
            throw failure("a \(first.width)x\(first.height) canvas is too large for JPEG XL")
        }
        // Every frame's straight-alpha rows, one after another.
        var pixels: [UInt8] = []
        pixels.reserveCapacity(first.byteCount * frames.count)
        var durations: [UInt32] = []
        var hasAlpha: Int32 = 0
        for (index, frame) in frames.enumerated() {
            guard frame.bitmap.width == first.width, frame.bitmap.height == first.height else {
                throw failure("frame \(index + 1) is \(frame.bitmap.width)x\(frame.bitmap.height), the canvas \(width)x\(height)")
            }
            pixels += frame.bitmap.straightAlphaPixels
            durations.append(UInt32(WebPEncoder.milliseconds(frame.duration)))
            if frame.bitmap.alphaMode != .opaque { hasAlpha = 1 }
        }
        let icc = [UInt8](colorProfile?.data ?? Data())
        let (distance, lossless, effort) = (Float(distance), Int32(isLossless ? 1 : 0), Int32(effort))
        let loops = UInt32(min(max(loopCount, 0), Int(UInt32.max)))
        let stride = first.bytesPerRow
        let frameBytes = first.byteCount
        return try encodeWithShim(library: "libjxl") { output, size, message in
            pixels.withUnsafeBufferPointer { all in
                let starts: [UnsafePointer<UInt8>?] = (0..<durations.count).map { index in all.baseAddress.map { $0 + index * frameBytes } }
                return icc.withUnsafeBufferPointer { icc in
                    imago_jxl_encode_animation(
                        starts, durations, starts.count, loops, width, height, stride, hasAlpha, distance, lossless, effort,
                        icc.baseAddress, icc.count, &output, &size, message)
                }
            }
        }
    }
}
#endif
