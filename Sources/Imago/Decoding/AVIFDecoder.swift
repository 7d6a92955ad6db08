#if os(Linux)  // with the other Linux codecs; Apple platforms use ImageIO
import CImagoCodecs
import Foundation

/// Decodes AVIF with libavif (Debian: libavif15, which decodes AV1 with dav1d or libaom): a still
/// image, or every frame of an image sequence (`avis`) with its duration.
///
/// The limits are checked against the boxes (``ISOBMFFHeader``) before libavif parses anything,
/// then against what libavif reports, before each frame's pixels are allocated. libavif does not
/// read thumbnails: an embedded one (``DecodingContext/prefersEmbeddedThumbnail``) is decoded by
/// libheif, when its build has an AV1 decoder.
struct AVIFDecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { format == .avif }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        let boxes = try ISOBMFFHeader.checked(data, context: context)
        if context.prefersEmbeddedThumbnail, let thumbnail = try Self.embeddedThumbnail(data, boxes: boxes, context: context) {
            return thumbnail
        }
        let limits = context.limits
        return try data.withBytes { bytes throws(ImagePipeline.Error) in
            var message = [CChar](repeating: 0, count: Int(IMAGO_MESSAGE_CAPACITY))
            var status: Int32 = 0
            func failure(_ status: Int32, frame: Int? = nil) -> ImagePipeline.Error {
                let words = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if status == IMAGO_CODEC_MISSING {
                    return .unsupportedFormat(
                        context.url,
                        detail: "libavif has no AV1 decoder (\(words)); install libavif15 with libdav1d6 or libaom3")
                }
                let place = frame.map { " (frame \($0 + 1))" } ?? ""
                return .decodingFailed(context.url, .avif, reason: "libavif\(place): \(words)")
            }
            var info = imago_avif_info()
            let frameLimit = context.decodesAllFrames ? Int32(clamping: limits.maximumFrameCount) : 0
            guard let base = bytes.baseAddress,
                let decoder = imago_avif_decoder_create(base, bytes.count, frameLimit, &info, &message, &status)
            else { throw failure(status) }
            defer { imago_avif_decoder_destroy(decoder) }

            let width = Int(info.width), height = Int(info.height)
            guard width > 0, height > 0 else {
                throw .decodingFailed(context.url, .avif, reason: "libavif reports a \(width)x\(height) image")
            }
            try limits.check(width: width, height: height, url: context.url)
            let count = min(max(Int(info.frame_count), 1), context.wantedFrameCount)
            if count > limits.maximumFrameCount {
                throw .limitExceeded(context.url, .frameCount(count: count, limit: limits.maximumFrameCount))
            }
            let total = (width * height).multipliedReportingOverflow(by: count)
            if total.overflow || total.partialValue > limits.maximumTotalFramePixels {
                throw .limitExceeded(
                    context.url,
                    .totalFramePixels(count: total.overflow ? Int.max : total.partialValue,
                                      limit: limits.maximumTotalFramePixels))
            }
            let alphaMode: Bitmap.AlphaMode = info.has_alpha != 0 ? .straight : .opaque
            let bytesPerRow = width * Bitmap.bytesPerPixel
            var frames: [AnimationFrame] = []
            for index in 0..<count {
                var seconds = 0.0
                let pixels = [UInt8].filled(count: bytesPerRow * height) { buffer in
                    status = imago_avif_next_frame(decoder, buffer, bytesPerRow, &seconds, &message)
                    return status == IMAGO_DECODED
                }
                guard let pixels else { throw failure(status, frame: count > 1 ? index : nil) }
                // libavif 0.11 reports alpha for some sequences whose frames are all opaque.
                let isOpaque = alphaMode == .opaque || stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == 255 }
                let bitmap = Bitmap(width: width, height: height, alphaMode: isOpaque ? .opaque : .straight, pixels: pixels)
                // Clamped before the conversion: a hostile timescale can make any double.
                let milliseconds = seconds.isFinite ? min(max(seconds, 0), 3_600) * 1_000 : 0
                let declared = Duration.milliseconds(Int64(milliseconds))
                frames.append(try AnimationFrame(bitmap: bitmap, duration: FrameTiming.displayDuration(declared)))
            }
            guard let first = frames.first else {
                throw .decodingFailed(context.url, .avif, reason: "the file holds no image")
            }
            var container = ImageContainer(image: first.image, format: .avif, frames: frames.count > 1 ? frames : [])
            let colour = EmbeddedColor.read(boxes, maximumProfileSize: context.limits.maximumColorProfileSize)
            ColorConversion.apply(colour, to: &container, source: .unknown, context: context)
            return container
        }
    }

    /// The largest thumbnail embedded in the AVIF file `data`, decoded by libheif; `nil` when it
    /// has none, or when libheif cannot read the file (no AV1 decoder in its build, a file it
    /// refuses): libavif then decodes the primary image. A limit the thumbnail exceeds is thrown.
    private static func embeddedThumbnail(
        _ data: Data, boxes: ISOBMFFHeader, context: DecodingContext
    ) throws(ImagePipeline.Error) -> ImageContainer? {
        do {
            return try HEIFDecoder.decode(data, boxes: boxes, format: .avif, choice: .thumbnailOnly, context: context)
        } catch {
            switch error {
            case .unsupportedFormat, .decodingFailed: return nil
            default: throw error
            }
        }
    }
}
#endif
