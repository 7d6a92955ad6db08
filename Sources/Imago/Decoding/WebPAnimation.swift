#if os(Linux)
import CImagoCodecs
import Foundation

/// Plays an animated WebP into full-canvas frames with libwebpdemux's `WebPAnimDecoder`, which
/// blends and disposes each frame as its `ANMF` chunk says; the canvas starts transparent and
/// "dispose to background" clears to transparent, as browsers do. Durations of 10 ms or less play
/// as 100 ms, also as browsers do.
///
/// Before libwebpdemux allocates anything, the frames are counted from the chunk headers and
/// `frames * canvas area` is checked against ``DecodingLimits/maximumTotalFramePixels``. A frame
/// whose bitstream is not the size its chunk declares fails the decoding; so does corrupt or
/// missing frame data. The task's cancellation is checked between frames.
struct WebPAnimation {
    let context: DecodingContext
    let width: Int
    let height: Int

    func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(ImagePipeline.Error) -> ImageContainer {
        guard let base = bytes.baseAddress else { throw failure("the file is empty") }
        let limits = context.limits
        let declared = imago_webp_count_frames(base, bytes.count)
        let wanted = min(declared, context.wantedFrameCount)
        if wanted > limits.maximumFrameCount {
            throw .limitExceeded(context.url, .frameCount(count: wanted, limit: limits.maximumFrameCount))
        }
        // libwebpdemux cannot scale: it composites full canvases (its own two). With a target size
        // each frame is box-reduced as it is copied out, so the frames kept are small.
        let factor = BoxReducer.factor(width: width, height: height, target: context.maximumPixelSize)
        let keptWidth = (width + factor - 1) / factor, keptHeight = (height + factor - 1) / factor
        let (totalPixels, overflow) = (keptWidth * keptHeight).multipliedReportingOverflow(by: wanted)
        if overflow || totalPixels > limits.maximumTotalFramePixels {
            throw .limitExceeded(
                context.url,
                .totalFramePixels(count: overflow ? .max : totalPixels, limit: limits.maximumTotalFramePixels))
        }

        var message = [CChar](repeating: 0, count: 160)
        guard let animation = imago_webp_animation_create(base, bytes.count, &message) else {
            throw failure(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { imago_webp_animation_destroy(animation) }
        var canvasWidth: UInt32 = 0, canvasHeight: UInt32 = 0, frameCount: UInt32 = 0
        imago_webp_animation_info(animation, &canvasWidth, &canvasHeight, &frameCount)
        guard Int(canvasWidth) == width, Int(canvasHeight) == height, Int(frameCount) == declared else {
            throw failure(
                "the demuxer found \(frameCount) frames on a \(canvasWidth)x\(canvasHeight) canvas, the header "
                    + "\(declared) on \(width)x\(height)")
        }

        let byteCount = width * height * Bitmap.bytesPerPixel  // checked by the decoder from the header
        var frames: [AnimationFrame] = []
        var previousTimestamp: Int32 = 0
        for index in 0..<wanted {
            try context.checkCancellation()
            var canvas: UnsafePointer<UInt8>?
            var timestamp: Int32 = 0
            guard imago_webp_animation_next(animation, &canvas, &timestamp) != 0, let canvas else {
                throw failure("libwebp could not decode frame \(index + 1) of \(wanted) (corrupt or cut short)")
            }
            let kept: Bitmap
            if factor > 1 {
                let reducer = BoxReducer(sourceWidth: width, sourceHeight: height, factor: factor, alphaMode: .straight)
                for y in 0..<height { reducer.add(row: canvas + y * width * Bitmap.bytesPerPixel) }
                kept = reducer.finish()
            } else {
                kept = Bitmap(
                    width: width, height: height, alphaMode: .straight,
                    pixels: [UInt8](UnsafeBufferPointer(start: canvas, count: byteCount)))
            }
            let pixels = kept.pixels
            let isOpaque = stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == 255 }
            let shown = Bitmap(
                width: kept.width, height: kept.height, alphaMode: isOpaque ? .opaque : .straight, pixels: pixels)
            let duration = Int(timestamp) - Int(previousTimestamp)
            previousTimestamp = timestamp
            frames.append(try AnimationFrame(bitmap: shown, duration: .milliseconds(duration <= 10 ? 100 : duration)))
        }
        guard let first = frames.first else { throw failure("the animation has no frames") }
        var container = ImageContainer(image: first.image, format: .webp, frames: frames.count > 1 ? frames : [])
        if frames.count > 1 { container.loopCount = Int(imago_webp_animation_loop_count(animation)) }
        return container
    }

    private func failure(_ reason: String) -> ImagePipeline.Error { .decodingFailed(context.url, .webp, reason: reason) }
}
#endif
