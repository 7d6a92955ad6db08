#if os(Linux)
import CImagoCodecs
import Foundation

/// Decodes PNG with libpng's simplified API: every colour type and bit depth (palette, grayscale,
/// 16-bit, alpha, tRNS), interlaced or not, to straight-alpha RGBA.
///
/// The header is read first and the limits checked before the pixel buffer exists. A truncated or
/// corrupt file fails with libpng's own message.
struct PNGDecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { format == .png }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        try data.withBytes { bytes throws(ImagePipeline.Error) in
            guard let base = bytes.baseAddress, let decoder = imago_png_decoder_create(base, bytes.count)
            else { throw .decodingFailed(context.url, .png, reason: "libpng could not start (out of memory)") }
            defer { imago_png_decoder_destroy(decoder) }
            func failure() -> ImagePipeline.Error {
                .decodingFailed(context.url, .png, reason: "libpng: \(String(cString: imago_png_message(decoder)))")
            }

            guard imago_png_header_ok(decoder) != 0 else { throw failure() }
            let width = Int(imago_png_width(decoder))
            let height = Int(imago_png_height(decoder))
            let byteCount = try context.limits.checkedByteCount(width: width, height: height, url: context.url)

            let bytesPerRow = width * Bitmap.bytesPerPixel
            let pixels = [UInt8].filled(count: byteCount) { buffer in
                imago_png_read_pixels(decoder, buffer, bytesPerRow) != 0
            }
            guard let pixels else { throw failure() }
            let alphaMode: Bitmap.AlphaMode = imago_png_has_alpha(decoder) != 0 ? .straight : .opaque
            let bitmap = Bitmap(width: width, height: height, alphaMode: alphaMode, pixels: pixels)
            return try ImageContainer(bitmap: bitmap, format: .png)
        }
    }
}
#endif
