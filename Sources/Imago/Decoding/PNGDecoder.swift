#if os(Linux)
import CImagoCodecs
import Foundation

/// Decodes PNG with libpng: every colour type and bit depth (palette, grayscale, 16-bit, alpha,
/// tRNS) to straight-alpha RGBA.
///
/// Files are decoded one row at a time (libpng's row API behind `setjmp`). With a target size the
/// rows stream into a ``BoxReducer`` that shrinks them by an integer factor to no less than twice
/// the target, so a thumbnail's memory is set by the target and one source row: the full-size
/// image never exists. An opaque image is read as RGB rows and only the reduced image gets its
/// alpha. Interlaced (Adam7) files arrive pass by pass, each pass's pixels added straight to the
/// reduced image's block sums (``InterlacedBoxReducer``).
///
/// A 16-bit file whose colour resolves to an RGB profile keeps its 16-bit samples up to the
/// transform, so no precision is lost before the profile's curves: with a target size its rows
/// are reduced at 16 bits (``DeepBoxReducer``, ``DeepInterlacedBoxReducer``) and only the reduced
/// image is converted, as libvips does; at full size (RGB and RGBA, not interlaced) each row is
/// converted as it is read. Other files are converted after the reduction as 8-bit RGBA
/// (``ColorConversion``).
///
/// The source size from the header is checked against ``DecodingLimits/maximumSourcePixelCount``
/// and the bitmap actually held against ``DecodingLimits/maximumPixelCount``, both before any pixel
/// memory exists.
///
/// Damage follows ``DecodingContext/policy``. Lenient (the default, as browsers): chunk CRC
/// mismatches are ignored (``ImageContainer/Repair/Kind/ignoredChecksum``) but for the header's
/// (`IHDR`), which Chromium refuses too, zlib's Adler-32 is not checked,
/// and a row that fails to decode (a bad filter byte, an inflate error, data that ends early)
/// keeps the rows before it and leaves the rest transparent (``ImageContainer/Repair/Kind/missingRows(_:)``;
/// for an interlaced file, the pixels of the passes that arrived). Strict: any of these fails with
/// libpng's own message.
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
        let lenient = context.policy == .lenient
        return try data.withBytes { bytes throws(ImagePipeline.Error) in
            guard let base = bytes.baseAddress,
                let rows = imago_png_rows_create(base, bytes.count, lenient ? IMAGO_PNG_LENIENT : 0)
            else { throw .decodingFailed(context.url, .png, reason: "libpng could not start (out of memory)") }
            defer { imago_png_rows_destroy(rows) }
            func failure() -> ImagePipeline.Error {
                .decodingFailed(context.url, .png, reason: "libpng: \(String(cString: imago_png_rows_message(rows)))")
            }
            guard imago_png_rows_header_ok(rows) != 0 else { throw failure() }
            let width = Int(imago_png_rows_width(rows))
            let height = Int(imago_png_rows_height(rows))
            try context.limits.checkSource(width: width, height: height, url: context.url)
            let factor = BoxReducer.factor(width: width, height: height, target: context.maximumPixelSize)
            let alphaMode: Bitmap.AlphaMode = imago_png_rows_has_alpha(rows) != 0 ? .straight : .opaque
            let interlaced = imago_png_rows_interlaced(rows) != 0
            let colour = EmbeddedColor.read(data, format: .png, maximumProfileSize: context.limits.maximumColorProfileSize)
            // A 16-bit file with an RGB profile to convert through: its rows stay 16-bit up to the
            // transform, so no precision is lost before it. Reduced (DeepBoxReducer), then converted
            // at the reduced size; full size, converted row by row.
            let deep = Self.deepTransform(rows, colour: colour, context: context, factor: factor, hasAlpha: alphaMode == .straight)
            // RGB rows when there is no alpha and something else is added: reduced, scattered or transformed.
            let rgb = factor > 1 || interlaced || deep != nil
            let options = (rgb ? IMAGO_PNG_RGB : 0) | (deep != nil ? IMAGO_PNG_KEEP16 : 0)
            guard imago_png_rows_start(rows, Int32(options)) != 0 else { throw failure() }
            let channels = Int(imago_png_rows_channels(rows))
            let reducedWidth = (width + factor - 1) / factor
            let reducedHeight = (height + factor - 1) / factor
            _ = try context.limits.checkedByteCount(width: reducedWidth, height: reducedHeight, url: context.url)
            let sampleBytes = deep != nil ? 2 : 1
            let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * channels * sampleBytes)
            defer { row.deallocate() }
            var repairs: [ImageContainer.Repair] = []
            /// Reads the rows in order into `row`, handing each to `add`. Lenient: a row that fails
            /// keeps the rows before it, and the rest stay transparent, as browsers show it.
            func readRows(_ add: (UnsafeMutablePointer<UInt8>) -> Void) throws(ImagePipeline.Error) {
                for y in 0..<height {
                    if y & 255 == 255 { try context.checkCancellation() }
                    guard imago_png_rows_read(rows, row) != 0 else {
                        guard lenient, y > 0 else { throw failure() }
                        repairs.append(ImageContainer.Repair(.missingRows(y..<height)))
                        return
                    }
                    add(row)
                }
            }

            let bitmap: Bitmap
            var workingSize = width * channels * sampleBytes
            if interlaced {
                // Adam7 passes into block sums: 16-bit ones with a transform (reduced by 4 or more), then converted.
                let add: (_ pass: Int, _ passRow: Int, _ columns: Int) -> Void
                let finish: () -> (bitmap: Bitmap, bytes: Int)
                if let deep {
                    let reducer = DeepInterlacedBoxReducer(
                        sourceWidth: width, sourceHeight: height, factor: factor, alphaMode: alphaMode, channels: channels)
                    add = { reducer.add(row: row, pass: $0, passRow: $1, columns: $2) }
                    finish = { (reducer.finish(through: deep.transform), reducer.allocatedBytes) }
                } else {
                    let reducer = InterlacedBoxReducer(
                        sourceWidth: width, sourceHeight: height, factor: factor, alphaMode: alphaMode, channels: channels)
                    add = { reducer.add(row: row, pass: $0, passRow: $1, columns: $2) }
                    finish = { (reducer.finish(), reducer.allocatedBytes) }
                }
                let count = imago_png_rows_count(rows)
                var index: UInt64 = 0
                while index < count {
                    if index & 255 == 255 { try context.checkCancellation() }
                    var pass: Int32 = 0, passRow: UInt32 = 0, columns: UInt32 = 0
                    guard imago_png_rows_pass(rows, &pass, &passRow, &columns) != 0,
                        imago_png_rows_read(rows, row) != 0
                    else {
                        guard lenient, index > 0 else { throw failure() }
                        repairs.append(ImageContainer.Repair(.corruptData(
                            "Adam7 pass \(pass + 1) of 7 stopped at its row \(passRow): \(String(cString: imago_png_rows_message(rows)))")))
                        break
                    }
                    add(Int(pass), Int(passRow), Int(columns))
                    index += 1
                }
                let finished = finish()
                bitmap = finished.bitmap
                workingSize += finished.bytes
            } else if let deep, factor > 1 {
                // Reduced at 16 bits, then converted: the transform sees only the reduced image.
                let reducer = DeepBoxReducer(
                    sourceWidth: width, sourceHeight: height, factor: factor, alphaMode: alphaMode, channels: channels)
                try readRows { reducer.add(row: $0) }
                bitmap = reducer.finish(through: deep.transform)
                workingSize += reducer.allocatedBytes
            } else if let deep {
                // Full size: each 16-bit row converted into an RGBA8 row as it is read.
                let reducer = BoxReducer(sourceWidth: width, sourceHeight: height, factor: 1, alphaMode: alphaMode)
                let converted = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 4)
                defer { converted.deallocate() }
                try readRows { row in
                    deep.transform.apply(
                        input: row, inputStride: width * channels * 2, output: converted, outputStride: width * 4,
                        width: width, rows: 1)
                    reducer.add(row: converted)
                }
                bitmap = reducer.finish()
                workingSize += reducer.allocatedBytes + width * 4
            } else {
                let reducer = BoxReducer(
                    sourceWidth: width, sourceHeight: height, factor: factor, alphaMode: alphaMode, channels: channels)
                try readRows { reducer.add(row: $0) }
                bitmap = reducer.finish()
                workingSize += reducer.allocatedBytes
            }
            // Chunks after the pixels: a strict decode still fails on a file cut after its pixels.
            if repairs.isEmpty, imago_png_rows_finish(rows) == 0 {
                guard lenient else { throw failure() }
                repairs.append(ImageContainer.Repair(.corruptData(
                    "after the pixels: \(String(cString: imago_png_rows_message(rows)))")))
            }
            if imago_png_rows_ignored_checksum(rows) != 0 { repairs.insert(ImageContainer.Repair(.ignoredChecksum), at: 0) }
            // The colour conversion runs on the reduced bitmap, after the reduction, as libvips does.
            var container = try ImageContainer(bitmap: bitmap, format: .png).withRepairs(repairs)
            if let deep {
                container.repairs += colour.problems.map { ImageContainer.Repair(.ignoredColorProfile($0)) }
                container.colorProfile = deep.profile
            } else {
                let model: ColorConversion.SourceModel = imago_png_rows_is_gray(rows) != 0 ? .gray : .rgb
                ColorConversion.apply(colour, to: &container, source: model, context: context)
            }
            return (container, workingSize)
        }
    }
}

extension PNGDecoder {
    /// The profile and 16-bit transform for a 16-bit file whose colour resolves to an RGB profile,
    /// when converting to sRGB; nil for anything else (the ordinary path converts it, or reports
    /// what is wrong). Gray files only when reduced (their rows come as RGB16; at full size they
    /// keep the 8-bit path browsers are compared on). Interlaced files only when reduced by 4 or
    /// more: their 16-bit block sums take 46 bytes a reduced pixel, under 3 a source pixel from a
    /// factor of 4, but more than the image as RGBA8 below it (those keep the 8-bit path).
    static func deepTransform(
        _ rows: OpaquePointer, colour: EmbeddedColor.Reading, context: DecodingContext, factor: Int, hasAlpha: Bool
    ) -> (profile: ColorProfile, transform: ColorTransform)? {
        let interlaced = imago_png_rows_interlaced(rows) != 0
        guard imago_png_rows_bit_depth(rows) == 16, context.colorProfileHandling == .convertToSRGB,
            interlaced ? factor >= 4 : (factor > 1 || imago_png_rows_is_gray(rows) == 0),
            let color = colour.color, case .profile(let profile) = ColorConversion.resolve(color), profile.colorSpace == .rgb,
            case .success(let transform) = ColorTransformCache.shared.transform(
                profile: profile.data, layout: hasAlpha ? .rgba16BE : .rgb16BE)
        else { return nil }
        return (profile, transform)
    }
}

extension ImageContainer {
    /// This container with `repairs` added to its own.
    fileprivate func withRepairs(_ repairs: [ImageContainer.Repair]) -> ImageContainer {
        guard !repairs.isEmpty else { return self }
        var container = self
        container.repairs += repairs
        return container
    }
}
#endif
