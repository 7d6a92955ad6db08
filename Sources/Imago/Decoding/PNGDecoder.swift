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
            // RGB rows when there is no alpha and something else is added: reduced or scattered.
            let interlaced = imago_png_rows_interlaced(rows) != 0
            let rgb = factor > 1 || interlaced
            let colour = EmbeddedColor.read(data, format: .png, maximumProfileSize: context.limits.maximumColorProfileSize)
            // A 16-bit colour file with a profile to convert through: the transform reads its 16-bit
            // rows, so no precision is lost before it (the rows are then reduced as 8-bit sRGB).
            let deepProfile = imago_png_rows_bit_depth(rows) == 16 && !interlaced && imago_png_rows_is_gray(rows) == 0
                && context.colorProfileHandling == .convertToSRGB ? Self.rgbProfile(colour) : nil
            let options = (rgb ? IMAGO_PNG_RGB : 0) | (deepProfile != nil ? IMAGO_PNG_KEEP16 : 0)
            guard imago_png_rows_start(rows, Int32(options)) != 0 else { throw failure() }
            let sourceChannels = Int(imago_png_rows_channels(rows))
            let deep = deepProfile.flatMap { profile in
                let layout: ColorTransform.Layout = sourceChannels == 4 ? .rgba16BE : .rgb16BE
                return (try? ColorTransformCache.shared.transform(profile: profile.data, layout: layout).get())
                    .map { (profile: profile, transform: $0) }
            }
            // The transform writes RGBA; without one, 16-bit rows kept for it become 8-bit here.
            let channels = deepProfile != nil ? 4 : sourceChannels
            let deepRow = deepProfile == nil ? nil : UnsafeMutablePointer<UInt8>.allocate(capacity: width * sourceChannels * 2)
            defer { deepRow?.deallocate() }
            let reducedWidth = (width + factor - 1) / factor
            let reducedHeight = (height + factor - 1) / factor
            _ = try context.limits.checkedByteCount(width: reducedWidth, height: reducedHeight, url: context.url)
            let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * channels)
            /// Reads the next row into `row`: straight, or through the 16-bit path.
            func readRow() -> Bool {
                guard let deepRow else { return imago_png_rows_read(rows, row) != 0 }
                guard imago_png_rows_read(rows, deepRow) != 0 else { return false }
                if let deep {
                    deep.transform.apply(
                        input: deepRow, inputStride: width * sourceChannels * 2, output: row, outputStride: width * 4,
                        width: width, rows: 1)
                } else {
                    Self.narrow(deepRow, to: row, width: width, channels: sourceChannels)
                }
                return true
            }
            defer { row.deallocate() }
            var repairs: [ImageContainer.Repair] = []

            let bitmap: Bitmap
            let reducerBytes: Int
            if interlaced {
                let reducer = InterlacedBoxReducer(
                    sourceWidth: width, sourceHeight: height, factor: factor, alphaMode: alphaMode, channels: channels)
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
                    reducer.add(row: row, pass: Int(pass), passRow: Int(passRow), columns: Int(columns))
                    index += 1
                }
                bitmap = reducer.finish()
                reducerBytes = reducer.allocatedBytes
            } else {
                let reducer = BoxReducer(
                    sourceWidth: width, sourceHeight: height, factor: factor, alphaMode: alphaMode, channels: channels)
                for y in 0..<height {
                    if y & 255 == 255 { try context.checkCancellation() }
                    guard readRow() else {
                        // Lenient: the rows so far, the rest transparent, as browsers show it.
                        guard lenient, y > 0 else { throw failure() }
                        repairs.append(ImageContainer.Repair(.missingRows(y..<height)))
                        break
                    }
                    reducer.add(row: row)
                }
                bitmap = reducer.finish()
                reducerBytes = reducer.allocatedBytes
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
            return (container, reducerBytes + width * channels + (deepRow == nil ? 0 : width * sourceChannels * 2))
        }
    }
}

extension PNGDecoder {
    /// The RGB profile `colour` declares, if it resolves to one (for the 16-bit path; anything
    /// else takes the ordinary path, which reports what is wrong).
    static func rgbProfile(_ colour: EmbeddedColor.Reading) -> ColorProfile? {
        guard let color = colour.color, case .profile(let profile) = ColorConversion.resolve(color),
            profile.colorSpace == .rgb
        else { return nil }
        return profile
    }

    /// 16-bit big-endian samples to 8-bit RGBA, rounded (the path a refused transform falls back to).
    static func narrow(_ source: UnsafePointer<UInt8>, to row: UnsafeMutablePointer<UInt8>, width: Int, channels: Int) {
        for x in 0..<width {
            for channel in 0..<4 {
                guard channel < channels else {
                    row[x * 4 + channel] = 255
                    continue
                }
                let at = (x * channels + channel) * 2
                let value = UInt32(source[at]) << 8 | UInt32(source[at + 1])
                row[x * 4 + channel] = UInt8((value * 255 + 32_767) / 65_535)
            }
        }
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
