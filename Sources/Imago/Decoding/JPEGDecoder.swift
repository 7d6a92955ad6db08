#if os(Linux)
import CImagoCodecs
import Foundation

/// Decodes JPEG with libjpeg-turbo: baseline, progressive, grayscale, CMYK and YCCK, with the EXIF
/// orientation applied.
///
/// Limits are checked against the header before libjpeg allocates anything. With a target size it
/// decodes at the smallest DCT scale (1/8 … 8/8) that still covers the target, so a 12-megapixel
/// photo becomes a 500x375 bitmap for a 256-pixel thumbnail. Any libjpeg warning about the data
/// itself (premature end, corrupt entropy data) fails the decoding: libjpeg would otherwise pad
/// the missing part with grey.
struct JPEGDecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { format == .jpeg }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        // libjpeg refuses sides over 65,500 with an error of its own; a limit is the truer answer.
        if let header = ImageHeader.probe(data) {
            try context.limits.check(width: header.width, height: header.height, url: context.url)
        }
        return try data.withBytes { bytes throws(ImagePipeline.Error) in
            let scans = Int32(clamping: context.limits.maximumProgressiveScans)
            guard let base = bytes.baseAddress, let decoder = imago_jpeg_decoder_create(base, bytes.count, scans)
            else { throw .decodingFailed(context.url, .jpeg, reason: "libjpeg could not start (out of memory)") }
            defer { imago_jpeg_decoder_destroy(decoder) }

            var header = imago_jpeg_header()
            try check(imago_jpeg_read_header(decoder, &header), decoder, context)
            try context.limits.check(width: Int(header.width), height: Int(header.height), url: context.url)

            let scale = Self.scaleNumerator(
                width: Int(header.width), height: Int(header.height), target: context.targetPixelSize)
            var width: Int32 = 0
            var height: Int32 = 0
            try check(imago_jpeg_start(decoder, Int32(scale), &width, &height), decoder, context)

            let byteCount = try context.limits.checkedByteCount(
                width: Int(width), height: Int(height), url: context.url)
            let bytesPerRow = Int(width) * Bitmap.bytesPerPixel
            var status = IMAGO_FAILED
            let pixels = [UInt8].filled(count: byteCount) { buffer in
                status = imago_jpeg_read_pixels(decoder, buffer, bytesPerRow)
                return status == IMAGO_OK
            }
            try check(status, decoder, context)
            guard let pixels else { throw .decodingFailed(context.url, .jpeg, reason: "no pixel buffer") }
            let bitmap = Bitmap(width: Int(width), height: Int(height), alphaMode: .opaque, pixels: pixels)
            let orientation = EXIFOrientation(jpeg: bytes) ?? .up
            return try ImageContainer(bitmap: orientation.apply(to: bitmap), format: .jpeg)
        }
    }

    /// The smallest numerator n (of n/8) whose output's longer side still reaches `target`; 8 (full
    /// size) without a target or when the target is larger than the image.
    static func scaleNumerator(width: Int, height: Int, target: Int?) -> Int {
        guard let target, target > 0 else { return 8 }
        let longer = max(width, height)
        // libjpeg rounds scaled dimensions up: ceil(longer * n / 8).
        return (1...8).first { (longer * $0 + 7) / 8 >= target } ?? 8
    }

    private func check(
        _ status: Int32, _ decoder: OpaquePointer, _ context: DecodingContext
    ) throws(ImagePipeline.Error) {
        switch status {
        case IMAGO_OK: return
        case IMAGO_SCAN_LIMIT:
            throw .limitExceeded(context.url, .progressiveScans(limit: context.limits.maximumProgressiveScans))
        default:
            throw .decodingFailed(context.url, .jpeg, reason: String(cString: imago_jpeg_message(decoder)))
        }
    }
}
#endif
