#if os(Linux)
import CImagoCodecs
import Foundation

/// Decodes WebP (lossy, lossless, with alpha, animated) with the system's libwebp and
/// libwebpdemux, linked at build time (Debian: libwebp-dev).
///
/// The header's size is checked against the source limits, and the size decoded (scaled by
/// libwebp when there is a target size) against the limits on what is held, before any pixel
/// memory exists; animations
/// are played by libwebpdemux's `WebPAnimDecoder` (see ``WebPAnimation``). A still bitstream of
/// another size than its header declares fails, so no pixel is ever left unwritten.
struct WebPDecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { format == .webp }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        var container = try decodePixels(data, context: context)
        ColorConversion.apply(to: &container, data: data, source: .rgb, context: context)
        return container
    }

    /// The pixels as stored (the still at its scaled size, or every frame of an animation).
    private func decodePixels(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        try data.withBytes { bytes throws(ImagePipeline.Error) in
            guard let base = bytes.baseAddress else { throw failure(context, "the file is empty") }
            var info = imago_webp_info()
            let status = imago_webp_get_info(base, bytes.count, &info)
            guard status == 0 else { throw failure(context, Self.describe(status: status)) }
            let width = Int(info.width), height = Int(info.height)
            try context.limits.checkSource(width: width, height: height, url: context.url)
            if info.has_animation != 0 {
                _ = try context.limits.checkedByteCount(width: width, height: height, url: context.url)
                return try WebPAnimation(context: context, width: width, height: height).decode(bytes)
            }
            let scaled = Self.scaledSize(width: width, height: height, target: context.maximumPixelSize)
            let byteCount = try context.limits.checkedByteCount(
                width: scaled.width, height: scaled.height, url: context.url)
            let bytesPerRow = scaled.width * Bitmap.bytesPerPixel
            let pixels = [UInt8].filled(count: byteCount) { buffer in
                imago_webp_decode_still(
                    base, bytes.count, info.width, info.height, Int32(scaled.width), Int32(scaled.height), buffer,
                    byteCount, bytesPerRow) != 0
            }
            guard let pixels else { throw failure(context, "libwebp could not decode the bitstream (corrupt or cut short)") }
            let alphaMode: Bitmap.AlphaMode = info.has_alpha != 0 ? .straight : .opaque
            return try ImageContainer(
                bitmap: Bitmap(width: scaled.width, height: scaled.height, alphaMode: alphaMode, pixels: pixels),
                format: .webp)
        }
    }

    /// The size libwebp decodes a still at: with a target, scaled by libwebp's own rescaler (during
    /// decoding, so the full-size image never exists) to twice the target on the longer side,
    /// leaving the last step to the Lanczos pass; the full size without a target or when that is
    /// not a reduction.
    static func scaledSize(width: Int, height: Int, target: Int?) -> PixelSize {
        let longer = max(width, height)
        guard let target, target > 0, target <= longer / 4, longer > 0 else {
            return PixelSize(width: width, height: height)
        }
        let scaledLonger = target * 2
        func scale(_ side: Int) -> Int {
            side == longer ? scaledLonger : max(1, (side * scaledLonger + longer / 2) / longer)
        }
        return PixelSize(width: scale(width), height: scale(height))
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
