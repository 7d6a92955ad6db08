#if os(Linux)
import CImagoCodecs
import Foundation

/// Decodes PNG with libpng: every colour type and bit depth (palette, grayscale, 16-bit, alpha,
/// tRNS) to straight-alpha RGBA.
///
/// Non-interlaced files are decoded one row at a time (libpng's row API behind `setjmp`). With a
/// target size the rows stream into a ``BoxReducer`` that shrinks them by an integer factor to no
/// less than twice the target, so a thumbnail's memory is set by the target and one source row:
/// the full-size image never exists. Interlaced (Adam7) files are decoded whole with libpng's
/// simplified API and then reduced, because their passes revisit every row.
///
/// The source size from the header is checked against ``DecodingLimits/maximumSourcePixelCount``
/// and the bitmap actually held against ``DecodingLimits/maximumPixelCount``, both before any pixel
/// memory exists. A truncated or corrupt file fails with libpng's own message.
struct PNGDecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { format == .png }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        try decodeMeasuringWork(data, context: context).container
    }

    /// Decodes, and reports the peak bytes of pixel memory the decoder allocated (its working
    /// size), so tests can show that a thumbnail never holds the full-size image.
    func decodeMeasuringWork(
        _ data: Data, context: DecodingContext
    ) throws(ImagePipeline.Error) -> (container: ImageContainer, workingSize: Int) {
        try data.withBytes { bytes throws(ImagePipeline.Error) in
            guard let base = bytes.baseAddress, let rows = imago_png_rows_create(base, bytes.count)
            else { throw .decodingFailed(context.url, .png, reason: "libpng could not start (out of memory)") }
            defer { imago_png_rows_destroy(rows) }
            func failure() -> ImagePipeline.Error {
                .decodingFailed(context.url, .png, reason: "libpng: \(String(cString: imago_png_rows_message(rows)))")
            }
            guard imago_png_rows_header_ok(rows) != 0 else { throw failure() }
            let width = Int(imago_png_rows_width(rows))
            let height = Int(imago_png_rows_height(rows))
            try context.limits.checkSource(width: width, height: height, url: context.url)
            let factor = BoxReducer.factor(width: width, height: height, target: context.targetPixelSize)
            let alphaMode: Bitmap.AlphaMode = imago_png_rows_has_alpha(rows) != 0 ? .straight : .opaque

            if imago_png_rows_interlaced(rows) != 0 {
                return try decodeInterlaced(bytes, width: width, height: height, factor: factor, context: context)
            }
            let reducer = BoxReducer(sourceWidth: width, sourceHeight: height, factor: factor, alphaMode: alphaMode)
            _ = try context.limits.checkedByteCount(width: reducer.width, height: reducer.height, url: context.url)
            let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * Bitmap.bytesPerPixel)
            defer { row.deallocate() }
            // The one row loop: a lenient decoder would stop at the first failing row here.
            for y in 0..<height {
                if y & 255 == 255 { try context.checkCancellation() }
                guard imago_png_rows_read(rows, row) != 0 else { throw failure() }
                reducer.add(row: row)
            }
            guard imago_png_rows_finish(rows) != 0 else { throw failure() }
            let workingSize = reducer.allocatedBytes + width * Bitmap.bytesPerPixel
            return (try ImageContainer(bitmap: reducer.finish(), format: .png), workingSize)
        }
    }

    /// An Adam7 file, decoded whole by the simplified API, then reduced by `factor`.
    private func decodeInterlaced(
        _ bytes: UnsafeBufferPointer<UInt8>, width: Int, height: Int, factor: Int, context: DecodingContext
    ) throws(ImagePipeline.Error) -> (container: ImageContainer, workingSize: Int) {
        guard let base = bytes.baseAddress, let decoder = imago_png_decoder_create(base, bytes.count)
        else { throw .decodingFailed(context.url, .png, reason: "libpng could not start (out of memory)") }
        defer { imago_png_decoder_destroy(decoder) }
        func failure() -> ImagePipeline.Error {
            .decodingFailed(context.url, .png, reason: "libpng: \(String(cString: imago_png_message(decoder)))")
        }
        guard imago_png_header_ok(decoder) != 0 else { throw failure() }
        // The whole image is held first: it must pass the limits on what is held.
        let byteCount = try context.limits.checkedByteCount(width: width, height: height, url: context.url)
        let bytesPerRow = width * Bitmap.bytesPerPixel
        let pixels = [UInt8].filled(count: byteCount) { buffer in
            imago_png_read_pixels(decoder, buffer, bytesPerRow) != 0
        }
        guard let pixels else { throw failure() }
        let alphaMode: Bitmap.AlphaMode = imago_png_has_alpha(decoder) != 0 ? .straight : .opaque
        let full = Bitmap(width: width, height: height, alphaMode: alphaMode, pixels: pixels)
        let reduced = BoxReducer.reduce(full, factor: factor)
        let workingSize = byteCount + (factor > 1 ? reduced.pixels.count : 0)
        return (try ImageContainer(bitmap: reduced, format: .png), workingSize)
    }
}
#endif
