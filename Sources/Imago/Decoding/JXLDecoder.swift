#if os(Linux)  // with the other Linux codecs; Apple platforms use ImageIO
import CImagoCodecs
import Foundation

/// Decodes JPEG XL with libjxl (Debian: libjxl-dev; 0.7 on Debian 12): a still image, or every
/// displayed frame of an animation as a full canvas with its duration, orientation applied, alpha
/// straight, to RGBA8.
///
/// The limits are checked twice before any pixel memory exists: against the codestream's
/// `SizeHeader` (``JXLHeader``), then against the size libjxl reports. libjxl cannot decode at a
/// reduced scale, so with a target size each frame is box-reduced as soon as it is decoded (one
/// full-size buffer is reused for every frame). An animation's frames are counted and their
/// pixels summed against the limits before each is decoded: libjxl cannot count them beforehand.
/// Lossy (XYB) images are decoded by libjxl straight to sRGB; lossless ones in their own colour
/// space, converted through the ICC profile libjxl reports for them like any embedded profile.
struct JXLDecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { format == .jxl }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        if let declared = JXLHeader.size(of: data) {
            try context.limits.checkSource(width: declared.width, height: declared.height, url: context.url)
        }
        return try data.withBytes { bytes throws(ImagePipeline.Error) in
            var message = Self.newMessage()
            var info = imago_jxl_info()
            guard let base = bytes.baseAddress else {
                throw .decodingFailed(context.url, .jxl, reason: "the file is empty")
            }
            guard let decoder = imago_jxl_decoder_create(base, bytes.count, &info, &message) else {
                throw Self.failure(message, context: context)
            }
            defer { imago_jxl_decoder_destroy(decoder) }

            let width = Int(info.width), height = Int(info.height)
            guard width > 0, height > 0 else {
                throw .decodingFailed(context.url, .jxl, reason: "libjxl reports a \(width)x\(height) image")
            }
            try context.limits.checkSource(width: width, height: height, url: context.url)
            let byteCount = try context.limits.checkedByteCount(width: width, height: height, url: context.url)
            let colour = try Self.readColour(decoder, context: context)
            let frames = try Frames(decoder: decoder, info: info, byteCount: byteCount, context: context).decode()
            guard let first = frames.first else {
                throw .decodingFailed(context.url, .jxl, reason: "the file holds no frame")
            }
            var container = ImageContainer(image: first.image, format: .jxl, frames: frames.count > 1 ? frames : [])
            if frames.count > 1 { container.loopCount = Int(info.loop_count) }
            ColorConversion.apply(colour, to: &container, source: info.is_gray != 0 ? .gray : .rgb, context: context)
            return container
        }
    }

    /// The colour of the decoded pixels: nothing when they are sRGB, else the ICC profile libjxl
    /// reports for them (a profile over the limit is a problem, never read).
    private static func readColour(
        _ decoder: OpaquePointer, context: DecodingContext
    ) throws(ImagePipeline.Error) -> EmbeddedColor.Reading {
        var message = newMessage()
        var profile: UnsafeMutablePointer<UInt8>?
        var size = 0
        let limit = context.limits.maximumColorProfileSize
        let status = imago_jxl_read_color(decoder, limit, &profile, &size, &message)
        defer { imago_jxl_free(profile) }
        switch status {
        case IMAGO_JXL_SRGB: return EmbeddedColor.Reading()
        case IMAGO_JXL_PROFILE_TOO_LARGE: return EmbeddedColor.Reading(problems: [EmbeddedColor.tooLarge(size, limit)])
        case IMAGO_JXL_OK:
            guard let profile else { return EmbeddedColor.Reading() }
            return EmbeddedColor.Reading(color: .icc(Data(bytes: profile, count: size)))
        default: throw failure(message, context: context)
        }
    }

    /// Room for the shim's words about a failure.
    private static func newMessage() -> [CChar] { [CChar](repeating: 0, count: Int(IMAGO_JXL_MESSAGE_CAPACITY)) }

    /// A `decodingFailed` with the shim's words, and the frame it was reading when there are several.
    private static func failure(_ message: [CChar], frame: Int? = nil, context: DecodingContext) -> ImagePipeline.Error {
        let words = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let place = frame.map { " (frame \($0 + 1))" } ?? ""
        return .decodingFailed(context.url, .jxl, reason: "libjxl\(place): \(words)")
    }

    /// Each displayed frame, decoded into one reused full-size buffer and kept box-reduced when
    /// the context has a target size.
    private struct Frames {
        let decoder: OpaquePointer
        let info: imago_jxl_info
        let byteCount: Int
        let context: DecodingContext

        func decode() throws(ImagePipeline.Error) -> [AnimationFrame] {
            var message = JXLDecoder.newMessage()
            func failure(_ frame: Int) -> ImagePipeline.Error {
                JXLDecoder.failure(message, frame: info.has_animation != 0 ? frame : nil, context: context)
            }
            let width = Int(info.width), height = Int(info.height)
            let limits = context.limits
            let factor = BoxReducer.factor(width: width, height: height, target: context.maximumPixelSize)
            let keptPixels = ((width + factor - 1) / factor) * ((height + factor - 1) / factor)
            let declaredAlpha: Bitmap.AlphaMode = info.has_alpha != 0 ? .straight : .opaque
            var scratch: [UInt8] = []
            var frames: [AnimationFrame] = []
            var totalPixels = 0
            while frames.count < context.wantedFrameCount {
                try context.checkCancellation()
                var ticks: UInt32 = 0
                let status = imago_jxl_next_frame(decoder, &ticks, &message)
                if status == IMAGO_JXL_END { break }
                guard status == IMAGO_JXL_OK else { throw failure(frames.count) }
                if frames.count >= limits.maximumFrameCount {
                    // At least one frame more than the limit; libjxl cannot say how many follow.
                    throw .limitExceeded(
                        context.url, .frameCount(count: frames.count + 1, limit: limits.maximumFrameCount))
                }
                if info.has_animation != 0 { try limits.addFramePixels(keptPixels, to: &totalPixels, url: context.url) }
                let bitmap: Bitmap
                if factor == 1 {
                    let pixels = [UInt8].filled(count: byteCount) { buffer in
                        imago_jxl_read_frame(decoder, buffer, byteCount, &message) == IMAGO_JXL_OK
                    }
                    guard let pixels else { throw failure(frames.count) }
                    bitmap = Bitmap(width: width, height: height, alphaMode: declaredAlpha, pixels: pixels)
                } else {
                    if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: byteCount) }
                    let reduced = scratch.withUnsafeMutableBufferPointer { buffer -> Bitmap? in
                        guard let base = buffer.baseAddress,
                            imago_jxl_read_frame(decoder, base, byteCount, &message) == IMAGO_JXL_OK
                        else { return nil }
                        let reducer = BoxReducer(
                            sourceWidth: width, sourceHeight: height, factor: factor, alphaMode: declaredAlpha)
                        for y in 0..<height { reducer.add(row: base + y * width * Bitmap.bytesPerPixel) }
                        return reducer.finish()
                    }
                    guard let reduced else { throw failure(frames.count) }
                    bitmap = reduced
                }
                frames.append(try AnimationFrame(bitmap: Self.shown(bitmap), duration: duration(ticks)))
            }
            return frames
        }

        /// A frame whose declared alpha is 255 throughout is opaque (animations often declare alpha).
        private static func shown(_ bitmap: Bitmap) -> Bitmap {
            guard bitmap.alphaMode != .opaque else { return bitmap }
            let pixels = bitmap.pixels
            let isOpaque = stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == 255 }
            return isOpaque ? Bitmap(width: bitmap.width, height: bitmap.height, alphaMode: .opaque, pixels: pixels) : bitmap
        }

        /// `ticks` at the animation's ticks per second, clamped (a hostile rate can make any
        /// double) and shown as browsers show short frames.
        private func duration(_ ticks: UInt32) -> Duration {
            guard info.has_animation != 0, info.ticks_numerator > 0 else { return .zero }
            let seconds = Double(ticks) * Double(info.ticks_denominator) / Double(info.ticks_numerator)
            let milliseconds = seconds.isFinite ? min(max(seconds, 0), 3_600) * 1_000 : 0
            return FrameTiming.displayDuration(.milliseconds(Int64(milliseconds)))
        }
    }
}
#endif
