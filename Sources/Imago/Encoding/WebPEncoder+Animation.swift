#if os(Linux)
import CImagoCodecs
import Foundation

extension WebPEncoder {
    /// Encodes `frames` (full canvases of one size, in play order, each with its display time) as
    /// an animated WebP that plays `loopCount` times (0: forever), with libwebpmux's
    /// `WebPAnimEncoder`: each frame lossy at ``quality`` or lossless, with ``effort`` and ``preset``, stored as the smallest
    /// change from the frame before that the encoder finds, transparency kept. Linux only: on
    /// Apple platforms write GIF (``GIFEncoder/encodeAnimation(_:loopCount:)``).
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for no frames, frames of
    ///   different sizes, a canvas larger than WebP's 16,383 pixels a side, or libwebp's refusal.
    package func encodeAnimation(
        _ frames: [(bitmap: Bitmap, duration: Duration)], loopCount: Int
    ) throws(ImagePipeline.Error) -> Data {
        let (width, height) = try animationCanvas(frames, maximumSide: 16_383)
        var message = [CChar](repeating: 0, count: 256)
        func text() -> String { message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } }
        let quality = isLossless ? 75 : Int32((quality * 100).rounded())
        let loops = Int32(min(max(loopCount, 0), 65_535))
        guard let encoder = imago_webp_animation_encoder_create(
            Int32(width), Int32(height), loops, isLossless ? 1 : 0, quality, Int32(min(max(effort, 0), 6)), preset.libwebpValue,
            &message)
        else { throw failure("libwebpmux: \(text())") }
        defer { imago_webp_animation_encoder_destroy(encoder) }
        var timestamp = 0
        for frame in frames {
            let pixels = frame.bitmap.straightAlphaPixels
            let status = imago_webp_animation_encoder_add(
                encoder, pixels, frame.bitmap.bytesPerRow, Int32(clamping: timestamp), &message)
            guard status == IMAGO_WEBP_OK else { throw failure("libwebpmux: \(text())") }
            timestamp += Self.milliseconds(frame.duration)
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard imago_webp_animation_encoder_finish(encoder, Int32(clamping: timestamp), &output, &size, &message) == IMAGO_WEBP_OK,
            let output
        else { throw failure("libwebpmux: \(text())") }
        defer { imago_free(output) }
        return Data(bytes: output, count: size)
    }

    /// `duration` in whole milliseconds, within 1...2^24 (the `ANMF` chunk's 24-bit field).
    static func milliseconds(_ duration: Duration) -> Int {
        let value = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        return min(16_777_215, max(1, Int(value.rounded())))
    }
}
#endif
