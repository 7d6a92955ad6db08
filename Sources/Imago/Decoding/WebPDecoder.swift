#if os(Linux)
import CImagoCodecs
import Foundation

/// Decodes WebP (lossy, lossless, with alpha, animated) with the system's libwebp and
/// libwebpdemux, linked at build time (Debian: libwebp-dev).
///
/// The header's size is checked against the limits before any pixel memory exists; animations
/// are played by libwebpdemux's `WebPAnimDecoder` (see ``WebPAnimation``). A still bitstream of
/// another size than its header declares fails, so no pixel is ever left unwritten.
struct WebPDecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { format == .webp }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        try data.withBytes { bytes throws(ImagePipeline.Error) in
            guard let base = bytes.baseAddress else { throw failure(context, "the file is empty") }
            var info = imago_webp_info()
            let status = imago_webp_get_info(base, bytes.count, &info)
            guard status == 0 else { throw failure(context, Self.describe(status: status)) }
            let width = Int(info.width), height = Int(info.height)
            let byteCount = try context.limits.checkedByteCount(width: width, height: height, url: context.url)
            if info.has_animation != 0 {
                return try WebPAnimation(context: context, width: width, height: height).decode(bytes)
            }
            let bytesPerRow = width * Bitmap.bytesPerPixel
            let pixels = [UInt8].filled(count: byteCount) { buffer in
                imago_webp_decode_still(base, bytes.count, info.width, info.height, buffer, byteCount, bytesPerRow) != 0
            }
            guard let pixels else { throw failure(context, "libwebp could not decode the bitstream (corrupt or cut short)") }
            let alphaMode: Bitmap.AlphaMode = info.has_alpha != 0 ? .straight : .opaque
            return try ImageContainer(
                bitmap: Bitmap(width: width, height: height, alphaMode: alphaMode, pixels: pixels), format: .webp)
        }
    }

    private func failure(_ context: DecodingContext, _ reason: String) -> ImagePipeline.Error {
        .decodingFailed(context.url, .webp, reason: reason)
    }

    /// A libwebp `VP8StatusCode` other than OK, in words.
    static func describe(status: Int32) -> String {
        switch status {
        case 1: "libwebp ran out of memory"
        case 2: "libwebp rejected a parameter"
        case 3: "the bitstream is corrupt"
        case 4: "the file uses a feature libwebp does not support"
        case 7: "the data ends too early"
        default: "libwebp status \(status)"
        }
    }
}
#endif
