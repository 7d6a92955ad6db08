#if os(Linux)
import Foundation

/// Plays an animated WebP into full-canvas frames: each `ANMF` chunk's bitstream is wrapped as a
/// still WebP for libwebp, then blended onto the canvas and disposed as the chunk says.
///
/// The canvas starts transparent and "dispose to background" clears to transparent (the `ANIM`
/// background colour is only a hint, and browsers ignore it). Durations of 10 ms or less play as
/// 100 ms, as in browsers.
struct WebPAnimation {
    let library: WebPLibrary
    let context: DecodingContext
    let width: Int
    let height: Int

    private struct Frame {
        var x: Int, y: Int, width: Int, height: Int
        var duration: Int
        var disposesToBackground: Bool
        var blends: Bool
        /// The frame's sub-chunks (optional ALPH, then VP8 or VP8L), as stored.
        var payload: Range<Int>
    }

    init(library: WebPLibrary, context: DecodingContext, width: Int, height: Int) {
        self.library = library
        self.context = context
        self.width = width
        self.height = height
    }

    func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(ImagePipeline.Error) -> ImageContainer {
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        var frames: [AnimationFrame] = []
        var previous: Frame?
        var totalPixels = 0
        for chunk in try chunks(bytes, in: 12..<bytes.count) where chunk.fourCC == "ANMF" {
            if !context.decodesAllFrames && !frames.isEmpty { break }
            let limits = context.limits
            if frames.count == limits.maximumFrameCount {
                throw .limitExceeded(context.url, .frameCount(count: frames.count + 1, limit: limits.maximumFrameCount))
            }
            totalPixels += width * height
            if totalPixels > limits.maximumTotalFramePixels {
                throw .limitExceeded(context.url, .totalFramePixels(count: totalPixels, limit: limits.maximumTotalFramePixels))
            }
            let frame = try parseFrame(bytes, chunk.payload, index: frames.count)
            if let previous, previous.disposesToBackground { clear(&canvas, previous) }
            let image = try decodeFrame(bytes, frame, index: frames.count)
            draw(image, frame, onto: &canvas)
            let isOpaque = stride(from: 3, to: canvas.count, by: 4).allSatisfy { canvas[$0] == 255 }
            let shown = Bitmap(width: width, height: height, alphaMode: isOpaque ? .opaque : .straight, pixels: canvas)
            frames.append(AnimationFrame(image: PlatformImage(shown), duration: .milliseconds(frame.duration <= 10 ? 100 : frame.duration)))
            previous = frame
        }
        guard let first = frames.first else { throw failure("the animation has no frames") }
        return ImageContainer(image: first.image, format: .webp, frames: frames.count > 1 ? frames : [])
    }

    private func failure(_ reason: String) -> ImagePipeline.Error { .decodingFailed(context.url, .webp, reason: reason) }

    private func chunks(_ bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>) throws(ImagePipeline.Error)
        -> [(fourCC: String, payload: Range<Int>)]
    {
        var found: [(fourCC: String, payload: Range<Int>)] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let fourCC = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let size = Int(uint32(bytes, offset + 4))
            let start = offset + 8
            guard size <= range.upperBound - start else { throw failure("the \(fourCC) chunk runs past the end of the file") }
            found.append((fourCC, start..<(start + size)))
            offset = start + size + (size & 1)
        }
        return found
    }

    private func parseFrame(_ bytes: UnsafeBufferPointer<UInt8>, _ payload: Range<Int>, index: Int)
        throws(ImagePipeline.Error) -> Frame
    {
        guard payload.count >= 16 else { throw failure("frame \(index + 1)'s header is cut short") }
        let at = payload.lowerBound
        let flags = bytes[at + 15]
        let frame = Frame(
            x: 2 * uint24(bytes, at), y: 2 * uint24(bytes, at + 3),
            width: uint24(bytes, at + 6) + 1, height: uint24(bytes, at + 9) + 1,
            duration: uint24(bytes, at + 12), disposesToBackground: flags & 0x01 != 0, blends: flags & 0x02 == 0,
            payload: (at + 16)..<payload.upperBound)
        guard frame.x + frame.width <= width, frame.y + frame.height <= height else {
            throw failure("frame \(index + 1) (\(frame.width)x\(frame.height) at \(frame.x),\(frame.y)) lies outside the \(width)x\(height) canvas")
        }
        return frame
    }

    /// Wraps the frame's chunks as a still WebP (with a VP8X header when it has an ALPH chunk) and
    /// decodes it.
    private func decodeFrame(_ bytes: UnsafeBufferPointer<UInt8>, _ frame: Frame, index: Int)
        throws(ImagePipeline.Error) -> Bitmap
    {
        let subChunks = try chunks(bytes, in: frame.payload)
        var body: [UInt8] = []
        if subChunks.contains(where: { $0.fourCC == "ALPH" }) {
            body += Array("VP8X".utf8) + le32(10) + [0x10, 0, 0, 0]
            body += le24(frame.width - 1) + le24(frame.height - 1)
        }
        let chunkStart = subChunks.first?.payload.lowerBound ?? frame.payload.lowerBound
        body += Array(bytes[(chunkStart - 8)..<frame.payload.upperBound])
        let file = Array("RIFF".utf8) + le32(body.count + 4) + Array("WEBP".utf8) + body
        let bitmap = file.withUnsafeBufferPointer { still in
            WebPDecoder.decodeStill(still, library: library, width: frame.width, height: frame.height, alphaMode: .straight)
        }
        guard let bitmap else { throw failure("libwebp could not decode frame \(index + 1)") }
        return bitmap
    }

    private func draw(_ image: Bitmap, _ frame: Frame, onto canvas: inout [UInt8]) {
        for row in 0..<frame.height {
            for column in 0..<frame.width {
                let source = (row * frame.width + column) * 4
                let target = ((frame.y + row) * width + frame.x + column) * 4
                let alpha = Int(image.pixels[source + 3])
                guard frame.blends && alpha < 255 else {
                    for channel in 0..<4 { canvas[target + channel] = image.pixels[source + channel] }
                    continue
                }
                // Straight-alpha "source over": the canvas shows through what the frame leaves.
                let below = Int(canvas[target + 3]) * (255 - alpha) / 255
                let outAlpha = alpha + below
                for channel in 0..<3 {
                    let mixed = Int(image.pixels[source + channel]) * alpha + Int(canvas[target + channel]) * below
                    canvas[target + channel] = outAlpha == 0 ? 0 : UInt8((mixed + outAlpha / 2) / outAlpha)
                }
                canvas[target + 3] = UInt8(outAlpha)
            }
        }
    }

    private func clear(_ canvas: inout [UInt8], _ frame: Frame) {
        for row in frame.y..<(frame.y + frame.height) {
            let start = (row * width + frame.x) * 4
            canvas.replaceSubrange(start..<(start + frame.width * 4), with: repeatElement(0, count: frame.width * 4))
        }
    }

    private func uint24(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int {
        Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16
    }

    private func uint32(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        UInt32(uint24(bytes, at)) | UInt32(bytes[at + 3]) << 24
    }

    private func le24(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
    private func le32(_ value: Int) -> [UInt8] { le24(value) + [UInt8(value >> 24 & 0xFF)] }
}
#endif
