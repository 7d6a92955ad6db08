import Foundation
import Testing

@testable import Imago

#if os(Linux)
@testable import ImagoServer
#endif

/// Replays every file of every `Fuzz/*/corpus` and `Fuzz/*/crashes` folder through the call its
/// libFuzzer harness makes (Fuzz/Common/FuzzTarget.swift, same limits): each must end in a result
/// or a thrown error, never a trap. This is how CI replays the saved corpora and crash files; the
/// files are read from the repository, beside this source file, not copied into the test bundle.
///
/// Each harness replays in a child process (an exit test), so a trap fails its test and names the
/// file that caused it instead of ending the whole test run.
@Suite struct FuzzCorpusReplayTests {
    /// The harnesses, each with its folder under `Fuzz/`.
    static let harnesses = [
        "jpeg", "png", "gif", "webp", "heif-avif", "jpeg-scans", "probe", "exif", "disk-entry", "http-headers",
        "processing-url", "colour-profile", "resumption", "jpeg-preview", "http-date", "jpeg-scan-selection", "jxl",
        "gain-map", "content-disposition", "metadata",
    ]

    @Test func everyHarnessFolderIsReplayed() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: FuzzCorpus.root.path)
            .filter { FileManager.default.fileExists(atPath: FuzzCorpus.root.appendingPathComponent("\($0)/Harness.swift").path) }
        #expect(Set(folders) == Set(Self.harnesses), "add the new harness to FuzzCorpusReplayTests and FuzzCorpus.replay")
    }

    @Test(arguments: harnesses)
    func replaysWithoutTrapping(harness: String) async throws {
        let files = FuzzCorpus.files(of: harness)
        #expect(!files.isEmpty, "Fuzz/\(harness)/corpus holds the seeds")
        // The child writes the name of each file before replaying it, so a trap can be traced to it.
        let progress = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-fuzz-replay-\(harness)-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: progress) }
        let replayed = await #expect(processExitsWith: .success) { [harness, progress = progress as String] in
            for file in FuzzCorpus.files(of: harness) {
                try Data(file.path.utf8).write(to: URL(fileURLWithPath: progress))
                FuzzCorpus.replay(harness: harness, data: try Data(contentsOf: file))
            }
        }
        if replayed == nil {
            let last = (try? String(contentsOfFile: progress, encoding: .utf8)) ?? "none"
            Issue.record("Fuzz/\(harness) trapped; the last file it was fed: \(last)")
        }
    }
}

/// The corpus folders and the entry point of each harness.
enum FuzzCorpus {
    /// `Fuzz/` at the repository root.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// Every file of the harness's corpus and crashes folders, in name order.
    static func files(of harness: String) -> [URL] {
        ["corpus", "crashes"].flatMap { folder -> [URL] in
            let directory = root.appendingPathComponent("\(harness)/\(folder)")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
        }
    }

    /// The limits of Fuzz/Common/FuzzTarget.swift.
    static let limits: DecodingLimits = {
        var limits = DecodingLimits()
        limits.maximumPixelCount = 4_000_000
        limits.maximumDimension = 16_384
        limits.maximumFrameCount = 64
        limits.maximumTotalFramePixels = 16_000_000
        return limits
    }()

    /// What the harness of that name does with one input (Fuzz/Common/FuzzTarget.swift).
    static func replay(harness: String, data: Data) {
        switch harness {
        case "jpeg": decode(data, as: .jpeg)
        case "png": decode(data, as: .png)
        case "gif": decode(data, as: .gif)
        case "webp": decode(data, as: .webp)
        case "heif-avif":
            decode(data, as: .heif)
            decode(data, as: .avif)
            decodeEmbeddedThumbnail(data)
        case "jxl":
            if let header = ImageHeader.probe(data) { precondition(header.width > 0 && header.height > 0) }
            decode(data, as: .jxl)
        case "jpeg-scans":
            _ = JPEGScanCounter.scanCount(of: data, stoppingAfter: 1_000)
            _ = try? JPEGScanCounter.check(data, limits: limits, url: nil)
        case "probe":
            _ = ImageHeader.details(data)
            guard let header = ImageHeader.probe(data) else { return }
            _ = header.pixelCount
            _ = try? limits.check(width: header.width, height: header.height, url: nil)
        case "exif":
            _ = data.withUnsafeBytes { EXIFOrientation(jpeg: $0.bindMemory(to: UInt8.self)) }?.swapsDimensions
        case "disk-entry":
            if case .header(let header, let length) = data.withUnsafeBytes({ EntryHeader.decode($0) }) {
                precondition(length <= data.count, "a decoded header claims bytes past the end")
                _ = header.encoded()
            }
        case "http-headers": responseHead(data)
        case "processing-url": processingURL(data)
        case "content-disposition": contentDisposition(data)
        case "colour-profile": colourProfile(data)
        case "resumption": resumption(data)
        case "jpeg-preview": jpegPreview(data)
        case "http-date": httpDate(data)
        case "jpeg-scan-selection": jpegScanSelection(data)
        case "gain-map": gainMap(data)
        case "metadata": metadata(data)
        default: preconditionFailure("no replay for harness \(harness)")
        }
    }

    /// Fuzz/jpeg-scan-selection/Harness.swift (FuzzTarget.jpegScanSelection): the scans a 1/8
    /// decode reads, checked as a JPEG and, for a file that decodes cleanly whole, by its pixels.
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

    /// Fuzz/http-date/Harness.swift (FuzzTarget.httpDate): any bytes as an HTTP date against two
    /// clocks, read back from its IMF-fixdate; Retry-After and the strong-date rule on the text.
    static func httpDate(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        for now in [Date(timeIntervalSince1970: 1_795_824_000), Date(timeIntervalSince1970: -2_000_000_000)] {
            let date = HTTPDate(bytes: data, now: now)
            precondition(HTTPDate(text, now: now) == date, "the text and the bytes read differently")
            if let date, date.secondsSince1970 <= 253_402_300_799 {
                precondition(HTTPDate(HTTPDate.imfFixdate(date.date), now: now) == date, "a date that does not read back")
            }
            _ = HTTPHeaderParser.retryAfter(text, now: now)
        }
        _ = ResumptionStateMachine.isStrong(lastModified: text, date: "Sun, 06 Nov 1994 08:49:37 GMT")
        _ = ResumptionStateMachine.isStrong(lastModified: "Sun, 06 Nov 1994 08:49:37 GMT", date: text)
    }

    /// Fuzz/processing-url/Harness.swift: the proxy's URL grammar and address literals.
    static func processingURL(_ data: Data) {
        #if os(Linux)
        let text = String(decoding: data, as: UTF8.self)
        let presets = (try? ProcessingPresets(definitions: [
            "default=q:70", "thumb=rs:fill:300:200:1:1:sm/g:fp:0.5:0.5", "a=pr:b/bl:2/c:0.5:10:no", "b=pr:a/pd:1:2/rot:-90",
        ])) ?? .none
        var onlyPresets = presets
        onlyPresets.onlyPresets = true
        for table in [ProcessingPresets.none, presets, onlyPresets] {
            if let path = try? ProcessingPath.parse(text, presets: table) {
                let options = path.options
                _ = options.canonical
                _ = options.pixelWidth * options.pixelHeight
                _ = options.pixelPadding.horizontal + options.pixelPadding.vertical
                // The geometry of every request size arithmetic (sources as decoders allow them).
                for (width, height) in [(1, 1), (4032, 3024), (65_500, 3), (7, 65_500)] {
                    let geometry = ProxyGeometry(source: PixelSize(width: width, height: height), options: options, maximumDimension: 16_384)
                    _ = geometry.requiredScale + Double(geometry.canvasSize.width * geometry.canvasSize.height)
                }
            }
        }
        var rules = ProcessingPath.Rules()
        rules.argumentsSeparator = ","
        rules.allowedOptions = ["rs", "w", "pr"]
        rules.base64URLIncludesFilename = true
        rules.baseURL = "https://cdn.example.com/"
        rules.urlReplacements = [.init(pattern: "s3://*/*", replacement: "https://$1.example/${2}$3$"), .init(pattern: "*", replacement: "$1")]
        _ = try? ProcessingPath.parse(text, presets: presets, rules: rules)
        if let address = IPAddress(text) {
            _ = address.nonPublicKind
            _ = IPAddress(address.description)
        }
        #endif
    }

    /// Fuzz/colour-profile/Harness.swift (FuzzTarget.colourProfile): the colour a file declares, or
    /// the bytes as a bare ICC profile; the profile it resolves to; a Little CMS transform from it
    /// applied to a 7x3 bitmap; the ICC header reader on the raw bytes. The resolving and the
    /// transforms are Linux's (Apple platforms convert with ImageIO).
    static func colourProfile(_ data: Data) {
        _ = (try? ColorProfile(iccData: data))?.description
        let color: EmbeddedColor?
        #if os(Linux)
        let cache = ColorTransformCache(capacity: 4)
        #endif
        switch ImageFormat.sniff(data) {
        case let format? where [.jpeg, .png, .webp, .heif, .avif].contains(format):
            let reading = EmbeddedColor.read(data, format: format, maximumProfileSize: limits.maximumColorProfileSize)
            _ = reading.problems.joined(separator: "; ")
            color = reading.color
        default:
            color = .icc(data)
            #if os(Linux)
            convertColorTestBitmap(profile: data, colorSpace: iccColorSpace(data), cache: cache)
            #endif
        }
        #if os(Linux)
        guard let color else { return }
        switch ColorConversion.resolve(color) {
        case .none: break
        case .failure(let failure): _ = failure.description
        case .profile(let profile):
            _ = profile.description
            convertColorTestBitmap(profile: profile.data, colorSpace: profile.colorSpace, cache: cache)
        }
        #else
        _ = color
        #endif
    }

    #if os(Linux)
    static let colorTestBitmap = Bitmap(
        width: 7, height: 3, alphaMode: .straight,
        pixels: (0..<(7 * 3 * 4)).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ ($0 / 4) &* 29) })

    static func iccColorSpace(_ data: Data) -> ColorProfile.ColorSpace {
        guard data.count >= 20 else { return .other }
        switch String(decoding: data.dropFirst(16).prefix(4), as: UTF8.self) {
        case "RGB ": return .rgb
        case "GRAY": return .gray
        case "CMYK": return .cmyk
        default: return .other
        }
    }

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
    #endif

    static func decode(_ data: Data, as format: ImageFormat) {
        guard ImageFormat.sniff(data) == format else { return }
        // The frames the container declares, counted without decoding (the pipeline's
        // animation limits): never more than the walk's bound.
        if let declared = ImageHeader.frameCount(data) { precondition(declared >= 1 && declared <= 100_000) }
        do {
            let container = try ImageDecoder.decode(data, limits: limits)
            for frame in container.frames { _ = try? frame.bitmap() }
            _ = try? container.bitmap()
        } catch {
            _ = error.description
        }
    }

    /// Fuzz/heif-avif/Harness.swift (FuzzTarget.decodeEmbeddedThumbnail): HEIF or AVIF bytes
    /// decoded again preferring an embedded thumbnail.
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

    /// Fuzz/jpeg-preview/Harness.swift (FuzzTarget.jpegPreview): the scan tracker in pieces
    /// against in one piece, the preview decisions, and the first previews decoded.
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
                if decoded % 2 == 1 { _ = machine.decodeEnded() }
            }
            offset = end
        }
        precondition(pieces == whole, "the tracker's answers depend on how the bytes are split")
    }

    /// Fuzz/resumption/Harness.swift (FuzzTarget.resumption): `Content-Range`, `Accept-Ranges` and
    /// the resumption decisions on a response head and body, with their consistency checks.
    static func resumption(_ data: Data) {
        let headEnd = data.range(of: Data("\n\n".utf8))
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
        _ = HTTPHeaderParser.ContentRange(headers["content-range"] ?? "")?.length
        _ = HTTPHeaderParser.acceptsByteRanges(headers["accept-ranges"])
        let url = URL(string: "http://127.0.0.1/fuzz.jpg")!
        let kept = Data(repeating: 7, count: 40)
        let received = DataLoader.Response(data: body, statusCode: statusCode, headers: headers)
        for partial in [
            ResumableData(data: kept, totalLength: 100, etag: "\"v1\"", lastModified: nil),
            ResumableData(data: kept, totalLength: 100, etag: nil, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"),
        ] {
            let machine = ResumptionStateMachine(url: url, requestHeaders: [:], partial: partial)
            if case .resumed(let joined) = machine.response(statusCode: statusCode, headers: headers, body: body) {
                precondition(joined.count == partial.totalLength && joined.starts(with: partial.data), "a join that is not the whole")
            }
            precondition(machine.progress(of: received).completed >= 0, "negative progress")
            if let next = machine.resumableData(from: received) {
                precondition(next.data.count < next.totalLength && next.ifRange != nil, "kept what cannot be resumed")
            }
        }
        if let next = ResumptionStateMachine(url: url, requestHeaders: [:], partial: nil).resumableData(from: received) {
            precondition(next.data == body && next.data.count < next.totalLength && next.ifRange != nil, "kept what cannot be resumed")
        }
    }

    static func responseHead(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? $0.dropLast() : $0
        }
        let statusCode = lines.isEmpty ? 200 : Int(lines.removeFirst().trimmingCharacters(in: .whitespaces)) ?? 200
        var fields: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.append(
                (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
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

        let request = DataLoader.Request(url: URL(string: "http://127.0.0.1/fuzz.jpg")!, headers: ["If-None-Match": "\"x\""])
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
}
