import Foundation

@testable import Imago

/// What every harness shares: how libFuzzer's bytes become `Data`, and the decoding limits a fuzz
/// run uses (small enough that an input declaring a huge image is refused from its header instead
/// of allocating gigabytes, which would only measure the machine).
///
/// Tests/ImagoTests/Fuzz/FuzzCorpusReplayTests.swift replays the corpora through the same calls
/// with the same limits; keep the two in step.
enum FuzzTarget {
    static let limits: DecodingLimits = {
        var limits = DecodingLimits()
        limits.maximumPixelCount = 4_000_000
        limits.maximumDimension = 16_384
        limits.maximumFrameCount = 64
        limits.maximumTotalFramePixels = 16_000_000
        return limits
    }()

    /// The largest colour profile the colour-profile harness reads: the decoders' own limit under
    /// ``limits`` (`maximumColorProfileSize`, DecodingLimits' default of 4 MiB), so the profile
    /// readers refuse or read what they refuse or read in the jpeg, png, webp and heif-avif harnesses.
    static var colorProfileLimit: Int { limits.maximumColorProfileSize }

    /// libFuzzer's input as `Data` (a zero-length input may come with a null pointer).
    static func data(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Data {
        guard let start, count > 0 else { return Data() }
        return Data(bytes: start, count: count)
    }

    /// Decodes `data` through the public entry point when it sniffs as `format`; other inputs are
    /// skipped so each decoder's harness spends its time on its own format.
    static func decode(_ data: Data, as format: ImageFormat) {
        guard ImageFormat.sniff(data) == format else { return }
        // The frames the container declares, counted without decoding (the pipeline's
        // animation limits): never more than the walk's bound.
        if let declared = ImageHeader.frameCount(data) { precondition(declared >= 1 && declared <= 100_000) }
        do {
            let container = try ImageDecoder.decode(data, limits: limits)
            // Reach every frame's pixels the way callers do.
            for frame in container.frames { _ = try? frame.bitmap() }
            _ = try? container.bitmap()
        } catch {
            _ = error.description
        }
    }

    /// Decodes HEIF or AVIF bytes preferring an embedded thumbnail (libheif's thumbnail items).
    static func decodeEmbeddedThumbnail(_ data: Data) {
        guard let format = ImageFormat.sniff(data), format == .heif || format == .avif else { return }
        var context = DecodingContext(format: format, limits: limits)
        context.prefersEmbeddedThumbnail = true
        do {
            _ = try ImageDecoder().decode(data, context: context).bitmap()
        } catch {
            _ = error.description
        }
    }

    /// Counts a JPEG's scans from its markers and applies the scan limit, as Apple platforms do.
    static func jpegScans(_ data: Data) {
        _ = JPEGScanCounter.scanCount(of: data, stoppingAfter: 1_000)
        _ = try? JPEGScanCounter.check(data, limits: limits, url: nil)
    }

    /// `JPEGScanSelector` at 1/8: a selection is a JPEG of the kept scans, ending at an end of
    /// image, whose own selection is refused (its luma is incomplete); and, for a file that decodes
    /// cleanly whole at 1/8, the selected scans decode to the same pixels.
    static func jpegScanSelection(_ data: Data) {
        guard case .scans(let selected, let kept, let total) = JPEGScanSelector.select(
            data, maximumScans: limits.maximumProgressiveScans, scaleNumerator: { _, _ in 1 })
        else { return }
        precondition(kept < total && selected.count < data.count, "a selection that skips nothing")
        precondition(selected.prefix(2) == Data([0xFF, 0xD8]) && selected.suffix(2) == Data([0xFF, 0xD9]), "a selection that is not a JPEG")
        precondition(JPEGScanCounter.scanCount(of: selected, stoppingAfter: 1_000) == kept, "kept scans miscounted")
        let again = JPEGScanSelector.select(selected, maximumScans: limits.maximumProgressiveScans, scaleNumerator: { _, _ in 1 })
        precondition(again == .whole(.unusualScans), "a selection that is complete")
        #if os(Linux)
        guard let header = ImageHeader.probe(data) else { return }
        let context = DecodingContext(
            format: .jpeg, limits: limits, maximumPixelSize: (max(header.width, header.height) + 7) / 8, policy: .strict)
        guard let whole = try? JPEGDecoder(selectsScans: false).decode(data, context: context).bitmap() else { return }
        let scans = try? JPEGDecoder().decode(data, context: context).bitmap()
        precondition(scans == whole, "the selected scans decode to other pixels than the whole file")
        #endif
    }

    /// A JPEG arriving in pieces (their size set by the input's last byte): `JPEGScanTracker` must
    /// give the same answers as for the bytes in one piece, `PreviewStateMachine` must only ask for
    /// prefixes that have arrived and for more scans each time, and the first previews it asks for
    /// are decoded (libjpeg-turbo's buffered-image mode on a prefix ending at a scan).
    static func jpegPreview(_ data: Data) {
        let step = Int(data.last ?? 0) % 61 + 1
        var whole = JPEGScanTracker()
        whole.consume(data)
        var pieces = JPEGScanTracker()
        var machine = PreviewStateMachine(maximumScans: limits.maximumProgressiveScans)
        var decoded = 0
        var scansAsked = 0
        var offset = 0
        while offset < data.count {
            let end = min(offset + step, data.count)
            pieces.consume(data[offset..<end])
            machine.consume(data[offset..<end])
            switch machine.next() {
            case .none:
                break
            case .keep(let length, let scans):
                precondition(length <= end && scans > scansAsked, "a preview of bytes not arrived, or of no more scans")
                scansAsked = scans
            case .decode(let length, let scans):
                precondition(length <= end && scans > scansAsked, "a preview of bytes not arrived, or of no more scans")
                scansAsked = scans
                if decoded < 3 {
                    decoded += 1
                    #if os(Linux)
                    _ = try? JPEGDecoder().preview(data.prefix(length), context: DecodingContext(format: .jpeg, limits: limits))
                    #endif
                }
                // Every other decode ends at once; the others stay under way so bytes are kept.
                if decoded % 2 == 1 { _ = machine.decodeEnded() }
            }
            offset = end
        }
        precondition(pieces == whole, "the tracker's answers depend on how the bytes are split")
    }

    /// Probes the header and computes what the pipeline computes from it.
    static func probe(_ data: Data) {
        // The details `imago inspect` prints: PNG chunks, JPEG frame header, GIF blocks, WebP chunks.
        _ = ImageHeader.details(data)
        guard let header = ImageHeader.probe(data) else { return }
        _ = header.pixelCount
        _ = try? limits.check(width: header.width, height: header.height, url: nil)
    }

    /// Reads the EXIF orientation of the bytes as if they were a JPEG.
    static func exifOrientation(_ data: Data) {
        let orientation = data.withUnsafeBytes { raw in
            EXIFOrientation(jpeg: raw.bindMemory(to: UInt8.self))
        }
        _ = orientation?.swapsDimensions
    }

    /// Decodes a disk-cache entry header; a valid one must lie inside the bytes it came from.
    static func diskEntryHeader(_ data: Data) {
        let decoded = data.withUnsafeBytes { EntryHeader.decode($0) }
        if case .header(let header, let length) = decoded {
            precondition(length <= data.count, "a decoded header claims bytes past the end")
            _ = header.encoded()
            // A reader that expects a key (the disk cache's hits): the stored one, and one byte
            // shorter, decode to the same header.
            for candidate in [header.key, String(header.key.dropLast())] {
                let expected = data.withUnsafeBytes { EntryHeader.decode($0, expectedKey: candidate) }
                precondition(expected == decoded, "a header decodes differently when its key is expected")
            }
        }
    }

    /// Splits a response head into a status code and header fields, then feeds it to everything
    /// that reads response headers.
    static func responseHead(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? $0.dropLast() : $0
        }
        let statusCode = lines.isEmpty ? 200 : Int(lines.removeFirst().trimmingCharacters(in: .whitespaces)) ?? 200
        var fields: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        var headers: [String: String] = [:]
        for (name, value) in fields {
            headers[name.lowercased()] = headers[name.lowercased()].map { "\($0), \(value)" } ?? value
        }

        let validators = HTTPCacheHeaders(responseHeaders: headers)
        _ = validators.lifetime
        _ = validators.conditionalRequestHeaders
        _ = HTTPCacheHeaders(metadata: validators.metadata)

        let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
        if let value = headers["retry-after"] { _ = DownloadValidator.retryAfter(value, now: now) }

        let url = URL(string: "http://127.0.0.1/fuzz.jpg")!
        let request = DataLoader.Request(url: url, headers: ["If-None-Match": "\"x\""])
        var validator = DownloadValidator(request: request, configuration: DataLoader.Configuration())
        do {
            try validator.receive(statusCode: statusCode, headers: fields)
            try validator.receive(Array("body".utf8))
            _ = validator.progress
            _ = try validator.finish()
        } catch {
            var generator = SystemRandomNumberGenerator()
            _ = RetryPolicy.default.delay(after: error, attempt: 1, using: &generator)
            _ = validator.interrupted(reason: "fuzz").description
        }
    }

    /// A resumed download's answer: a response head (status line, `Name: value` lines), then an
    /// empty line and body bytes. `Content-Range` and `Accept-Ranges` are read, and a
    /// `ResumptionStateMachine` holding 40 kept bytes of 100 decides what the answer means, how far
    /// it has come and what to keep of it; what it joins or keeps must stay consistent.
    static func resumption(_ data: Data) {
        let (statusCode, headers, body) = resumptionInput(data)
        _ = HTTPHeaderParser.ContentRange(headers["content-range"] ?? "")?.length
        _ = HTTPHeaderParser.acceptsByteRanges(headers["accept-ranges"])
        let url = URL(string: "http://127.0.0.1/fuzz.jpg")!
        let kept = Data(repeating: 7, count: 40)
        let partials = [
            ResumableData(data: kept, totalLength: 100, etag: "\"v1\"", lastModified: nil),
            ResumableData(data: kept, totalLength: 100, etag: nil, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"),
        ]
        let received = DataLoader.Response(data: body, statusCode: statusCode, headers: headers)
        for partial in partials {
            let machine = ResumptionStateMachine(url: url, requestHeaders: [:], partial: partial)
            if case .resumed(let joined) = machine.response(statusCode: statusCode, headers: headers, body: body) {
                precondition(joined.count == partial.totalLength && joined.starts(with: partial.data), "a join that is not the whole")
            }
            let progress = machine.progress(of: received)
            precondition(progress.completed >= 0, "negative progress")
            if let next = machine.resumableData(from: received) {
                precondition(next.data.count < next.totalLength && next.ifRange != nil, "kept what cannot be resumed")
            }
        }
        let fresh = ResumptionStateMachine(url: url, requestHeaders: [:], partial: nil)
        if let next = fresh.resumableData(from: received) {
            precondition(next.data == body && next.data.count < next.totalLength && next.ifRange != nil, "kept what cannot be resumed")
        }
    }

    /// Any bytes as an HTTP date (`HTTPDate`), read against two clocks (two-digit years depend on
    /// it): a date read must print back as an IMF-fixdate that reads to the same second, and the
    /// text path the header readers take must agree with the byte path. Then `Retry-After` and the
    /// strong-`Last-Modified` rule of resumption on the same text.
    static func httpDate(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        for now in [Date(timeIntervalSince1970: 1_795_824_000), Date(timeIntervalSince1970: -2_000_000_000)] {
            let date = HTTPDate(bytes: data, now: now)
            precondition(HTTPDate(text, now: now) == date, "the text and the bytes read differently")
            // Past 9999-12-31 23:59:59 only by a leap second, which the writer clamps.
            if let date, date.secondsSince1970 <= 253_402_300_799 {
                let printed = HTTPDate.imfFixdate(date.date)
                precondition(HTTPDate(printed, now: now) == date, "a date that does not read back: \(printed)")
            }
            _ = HTTPHeaderParser.retryAfter(text, now: now)
        }
        _ = ResumptionStateMachine.isStrong(lastModified: text, date: "Sun, 06 Nov 1994 08:49:37 GMT")
        _ = ResumptionStateMachine.isStrong(lastModified: "Sun, 06 Nov 1994 08:49:37 GMT", date: text)
    }

    /// Splits a `resumption` input into status, headers (lower-cased names, repeats joined) and body.
    static func resumptionInput(_ data: Data) -> (Int, [String: String], Data) {
        let separator = Data("\n\n".utf8)
        let headEnd = data.range(of: separator)
        let head = String(decoding: headEnd.map { data[..<$0.lowerBound] } ?? data, as: UTF8.self)
        let body = headEnd.map { Data(data[$0.upperBound...]) } ?? Data()
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false)
        let statusCode = lines.isEmpty ? 206 : Int(lines.removeFirst().trimmingCharacters(in: .whitespaces)) ?? 206
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return (statusCode, headers, body)
    }

    /// The colour-profile readers and Little CMS on one input: the colour declaration of a JPEG,
    /// PNG, WebP, HEIF or AVIF file (`EmbeddedColor.read`, the `colr` boxes through
    /// `ISOBMFFHeader`), or any other bytes as a bare ICC profile; the profile that declaration
    /// stands for (`ColorConversion.resolve`: the ICC header reader, or a profile built from code
    /// points or `gAMA`/`cHRM`); a transform to sRGB from it, applied to a small bitmap; and the ICC
    /// header reader on the raw bytes; and the tone-curve reader (`hasSRGBTransfer`) on both.
    static func colourProfile(_ data: Data) {
        _ = (try? ColorProfile(iccData: data))?.description
        _ = ICCProfileReader.hasSRGBTransfer(data)  // the tone curves linear light checks
        let cache = ColorTransformCache(capacity: 4)
        let color: EmbeddedColor?
        switch ImageFormat.sniff(data) {
        case let format? where [.jpeg, .png, .webp, .heif, .avif].contains(format):
            let reading = EmbeddedColor.read(data, format: format, maximumProfileSize: colorProfileLimit)
            _ = reading.problems.joined(separator: "; ")
            color = reading.color
        default:
            // A bare profile: Little CMS reads the bytes as they are, whatever Imago's reader says of them.
            color = .icc(data)
            convertColorTestBitmap(profile: data, colorSpace: iccColorSpace(data), cache: cache)
        }
        guard let color else { return }
        switch ColorConversion.resolve(color) {
        case .none: break
        case .failure(let failure): _ = failure.description
        case .profile(let profile):
            _ = profile.description
            _ = ICCProfileReader.hasSRGBTransfer(profile.data)
            convertColorTestBitmap(profile: profile.data, colorSpace: profile.colorSpace, cache: cache)
        }
    }

    /// 7x3 pixels of varied values (gray, CMYK and RGB alike read them), with varied alpha.
    static let colorTestBitmap = Bitmap(
        width: 7, height: 3, alphaMode: .straight,
        pixels: (0..<(7 * 3 * 4)).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ ($0 / 4) &* 29) })

    /// The colour space an ICC header names at bytes 16–19, read without checking anything else.
    static func iccColorSpace(_ data: Data) -> ColorProfile.ColorSpace {
        guard data.count >= 20 else { return .other }
        switch String(decoding: data.dropFirst(16).prefix(4), as: UTF8.self) {
        case "RGB ": return .rgb
        case "GRAY": return .gray
        case "CMYK": return .cmyk
        default: return .other
        }
    }

    /// Builds every transform the decoders may for a profile of `colorSpace` (RGB: 8-bit RGBA and
    /// PNG's 16-bit RGB and RGBA; CMYK: plain and Adobe's inverted; gray) and converts a test
    /// pattern through each: ``colorTestBitmap`` in place for the 8-bit layouts, the same bytes
    /// read as 16-bit rows into a separate RGBA output for the others. Any other colour space is
    /// tried as RGB (Little CMS then parses the profile and refuses the mismatch).
    static func convertColorTestBitmap(profile: Data, colorSpace: ColorProfile.ColorSpace, cache: ColorTransformCache) {
        let layouts: [ColorTransform.Layout] =
            switch colorSpace {
            case .gray: [.grayInRGBA8]
            case .cmyk: [.cmyk8, .cmyk8Inverted]
            case .rgb, .other: [.rgba8, .rgb16BE, .rgba16BE, .srgbToProfileRGBA8]
            }
        for layout in layouts {
            switch cache.transform(profile: profile, layout: layout) {
            case .success(let transform):
                let width = colorTestBitmap.width, rows = colorTestBitmap.height
                let inputBytesPerPixel =
                    switch layout {
                    case .rgb16BE: 6
                    case .rgba16BE: 8
                    case .rgba8, .grayInRGBA8, .cmyk8, .cmyk8Inverted, .srgbToProfileRGBA8: 4
                    }
                guard inputBytesPerPixel != 4 else {
                    var bitmap = colorTestBitmap
                    transform.apply(to: &bitmap)
                    precondition(bitmap.pixels.count == colorTestBitmap.pixels.count)
                    continue
                }
                let input = (0..<(width * rows * inputBytesPerPixel)).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
                var output = [UInt8](repeating: 0, count: width * rows * 4)
                input.withUnsafeBytes { source in
                    output.withUnsafeMutableBufferPointer { target in
                        guard let from = source.baseAddress, let to = target.baseAddress else { return }
                        transform.apply(
                            input: from, inputStride: width * inputBytesPerPixel, output: to, outputStride: width * 4,
                            width: width, rows: rows)
                    }
                }
            case .failure(let failure):
                _ = failure.description
            }
        }
    }
}
