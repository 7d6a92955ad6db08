#if os(Linux)
import CImagoCodecs
import Foundation

/// Decodes JPEG with libjpeg-turbo: baseline, progressive, grayscale, CMYK and YCCK, with the EXIF
/// orientation applied.
///
/// The source limits are checked against the header before libjpeg allocates anything, and the
/// limits on what is held against the DCT-scaled output. With a target size it
/// decodes at the smallest DCT scale (1/8 … 8/8) that still covers the target, so a 12-megapixel
/// photo becomes a 500x375 bitmap for a 256-pixel thumbnail. A progressive file decoded at 1/8
/// gives libjpeg only the scans that decode reads (``JPEGScanSelector``), for the same pixels.
///
/// Damage at the source follows ``DecodingContext/policy``. Lenient (the default), as browsers do:
/// after a warning about the data (premature end, corrupt entropy data) libjpeg's output is kept,
/// with its grey fill; a failure once the header has given the size keeps the rows (or, for a
/// progressive file, the scans) that decoded, grey below; each is listed in
/// ``ImageContainer/repairs``. Strict: any such warning or failure fails the decoding.
struct JPEGDecoder: ImageDecoding {
    /// Whether a progressive file decoded at 1/8 gives libjpeg only the scans that decode reads
    /// (``JPEGScanSelector``); off, the whole file, as the tests' and benchmark's baseline.
    var selectsScans = true
    /// Whether an HDR gain map in the file is decoded beside the base (``ImageContainer/gainMap``,
    /// `JPEGDecoder+GainMap.swift`); off for the gain map's own decode.
    var readsGainMap = true

    func canDecode(_ format: ImageFormat) -> Bool { format == .jpeg }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        var container = try decodeBase(data, context: context)
        if readsGainMap { attachGainMap(from: data, to: &container, context: context) }
        return container
    }

    /// The primary image alone.
    private func decodeBase(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        // A progressive file decoded at 1/8: only the scans that decode reads, strictly; the whole
        // file if they do not decode cleanly (its own repairs or errors are then the answer).
        if selectsScans, case .scans(let scans, _, _) = Self.eighthScaleSelection(data, context: context),
            let decoded = try? decode(data, context: context, preview: false, selectedScans: scans)
        {
            return decoded.container
        }
        return try decode(data, context: context, preview: false).container
    }

    /// The scans of `data` a decode at 1/8 reads (``JPEGScanSelector``), when the target size
    /// makes the decode 1/8.
    static func eighthScaleSelection(_ data: Data, context: DecodingContext) -> JPEGScanSelector.Selection {
        guard let target = context.maximumPixelSize else { return .whole(.scale) }
        return JPEGScanSelector.select(data, maximumScans: context.limits.maximumProgressiveScans) { width, height in
            scaleNumerator(width: width, height: height, target: target)
        }
    }

    /// A preview of a progressive JPEG from its first bytes, which end where a scan ends (see
    /// ``JPEGScanTracker/boundary``): the scans they hold, decoded in libjpeg's buffered-image mode
    /// at the scale and with the colour handling a full decode of the file would have, and the
    /// number of scans shown. Strict, and stopped when the task is cancelled.
    /// - Throws: `decodingFailed` for a single-scan file or damaged scans, `cancelled`, a limit.
    func preview(_ prefix: Data, context: DecodingContext) throws(ImagePipeline.Error) -> (container: ImageContainer, scans: Int) {
        try decode(prefix, context: context, preview: true)
    }

    /// Asked by libjpeg between rows and scans of a preview.
    private static let isCancelled: @convention(c) () -> Int32 = { Task.isCancelled ? 1 : 0 }

    /// Decodes `data`, giving libjpeg `selectedScans` instead when set: the same file without the scans
    /// a 1/8 decode does not read, decoded strictly and without block smoothing.
    private func decode(
        _ data: Data, context: DecodingContext, preview: Bool, selectedScans: Data? = nil
    ) throws(ImagePipeline.Error) -> (container: ImageContainer, scans: Int) {
        // libjpeg refuses sides over 65,500 with an error of its own; a limit is the truer answer.
        if let header = ImageHeader.probe(data) {
            try context.limits.checkSource(width: header.width, height: header.height, url: context.url)
        }
        return try (selectedScans ?? data).withBytes { bytes throws(ImagePipeline.Error) in
            let scans = Int32(clamping: context.limits.maximumProgressiveScans)
            guard let base = bytes.baseAddress, let decoder = imago_jpeg_decoder_create(base, bytes.count, scans)
            else { throw .decodingFailed(context.url, .jpeg, reason: "libjpeg could not start (out of memory)") }
            defer { imago_jpeg_decoder_destroy(decoder) }
            if preview {
                imago_jpeg_set_preview(decoder, Self.isCancelled)
            } else if selectedScans != nil {
                imago_jpeg_set_block_smoothing(decoder, 0)
            } else {
                imago_jpeg_set_lenient(decoder, context.policy == .lenient ? 1 : 0)
            }

            var header = imago_jpeg_header()
            try check(imago_jpeg_read_header(decoder, &header), decoder, context)
            try context.limits.checkSource(width: Int(header.width), height: Int(header.height), url: context.url)
            let colour = EmbeddedColor.read(data, format: .jpeg, maximumProfileSize: context.limits.maximumColorProfileSize)
            // CMYK through its profile: the rows stay C, M, Y, K and the transform makes them sRGB.
            let cmyk = header.color_model == IMAGO_JPEG_CMYK
                ? Self.cmykTransform(colour, inverted: imago_jpeg_cmyk_inverted(decoder) != 0) : nil
            imago_jpeg_set_raw_cmyk(decoder, cmyk?.transform != nil ? 1 : 0)

            let scale = Self.scaleNumerator(
                width: Int(header.width), height: Int(header.height), target: context.maximumPixelSize)
            var width: Int32 = 0
            var height: Int32 = 0
            let started = imago_jpeg_start(decoder, Int32(scale), &width, &height)
            if started != IMAGO_PARTIAL { try check(started, decoder, context) }

            let byteCount = try context.limits.checkedByteCount(
                width: Int(width), height: Int(height), url: context.url)
            let bytesPerRow = Int(width) * Bitmap.bytesPerPixel
            var status = IMAGO_FAILED
            let pixels = [UInt8].filled(count: byteCount) { buffer in
                status = imago_jpeg_read_pixels(decoder, buffer, bytesPerRow)
                return status == IMAGO_OK || status == IMAGO_PARTIAL
            }
            if status != IMAGO_PARTIAL { try check(status, decoder, context) }
            guard let pixels else { throw .decodingFailed(context.url, .jpeg, reason: "no pixel buffer") }
            // `consume`: the buffer has one owner, so the conversions below change it in place.
            var bitmap = Bitmap(width: Int(width), height: Int(height), alphaMode: .opaque, pixels: consume pixels)
            if let transform = cmyk?.transform {
                // Rows that did not decode are libjpeg's grey already: only the decoded ones convert.
                let rows = status == IMAGO_PARTIAL ? min(max(Int(imago_jpeg_rows_decoded(decoder)), 0), Int(height)) : Int(height)
                let stride = bitmap.bytesPerRow
                bitmap.pixels.withUnsafeMutableBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return }
                    transform.apply(input: base, inputStride: stride, output: base, outputStride: stride, width: Int(width), rows: rows)
                }
            }
            let orientation = EXIFOrientation(jpeg: bytes) ?? .up
            var container = try ImageContainer(bitmap: orientation.apply(to: consume bitmap), format: .jpeg)
            container.repairs = Self.repairs(status: status, height: Int(height), decoder: decoder)
            if let cmyk {
                container.repairs += cmyk.problems.map { ImageContainer.Repair(.ignoredColorProfile($0)) }
                if cmyk.transform != nil { container.colorProfile = cmyk.profile }
            } else {
                let model: ColorConversion.SourceModel = header.color_model == IMAGO_JPEG_GRAY ? .gray : .rgb
                ColorConversion.apply(colour, to: &container, source: model, context: context)
            }
            return (container, Int(imago_jpeg_scans_read(decoder)))
        }
    }

    /// A CMYK file's profile and its transform; without a usable CMYK profile, no transform (the
    /// rows are then converted by formula, as browsers do) and the reasons.
    static func cmykTransform(
        _ colour: EmbeddedColor.Reading, inverted: Bool
    ) -> (profile: ColorProfile?, transform: ColorTransform?, problems: [String]) {
        var problems = colour.problems
        guard case .icc(let data) = colour.color else { return (nil, nil, problems) }
        do {
            let profile = try ColorProfile(iccData: data)
            guard profile.colorSpace == .cmyk else {
                problems.append("the profile is for \(profile.colorSpace.rawValue) pixels, the image's are CMYK")
                return (nil, nil, problems)
            }
            switch ColorTransformCache.shared.transform(profile: profile.data, layout: inverted ? .cmyk8Inverted : .cmyk8) {
            case .success(let transform): return (profile, transform, problems)
            case .failure(let failure): return (nil, nil, problems + [failure.description])
            }
        } catch {
            return (nil, nil, problems + [error.description])
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

    /// What a lenient decode passed over: the first data warning (with how many there were) and,
    /// after a failure, why it stopped and the rows of the decoded (unrotated) image left grey.
    static func repairs(status: Int32, height: Int, decoder: OpaquePointer) -> [ImageContainer.Repair] {
        var repairs: [ImageContainer.Repair] = []
        let warnings = Int(imago_jpeg_warning_count(decoder))
        if warnings > 0 {
            let first = String(cString: imago_jpeg_warning(decoder))
            repairs.append(ImageContainer.Repair(.corruptData(warnings == 1 ? first : "\(first) (and \(warnings - 1) more warnings)")))
        }
        if status == IMAGO_PARTIAL {
            repairs.append(ImageContainer.Repair(.corruptData("decoding stopped: " + String(cString: imago_jpeg_message(decoder)))))
            let rows = min(max(Int(imago_jpeg_rows_decoded(decoder)), 0), height)
            if rows < height { repairs.append(ImageContainer.Repair(.missingRows(rows..<height))) }
        }
        return repairs
    }

    private func check(
        _ status: Int32, _ decoder: OpaquePointer, _ context: DecodingContext
    ) throws(ImagePipeline.Error) {
        switch status {
        case IMAGO_OK: return
        case IMAGO_SCAN_LIMIT:
            throw .limitExceeded(context.url, .progressiveScans(limit: context.limits.maximumProgressiveScans))
        case IMAGO_CANCELLED:
            try context.checkCancellation()
            throw .cancelled(context.url ?? URL(fileURLWithPath: "/"))
        default:
            throw .decodingFailed(context.url, .jpeg, reason: String(cString: imago_jpeg_message(decoder)))
        }
    }
}
#endif
