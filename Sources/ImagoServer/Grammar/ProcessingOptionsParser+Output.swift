#if os(Linux)
import Foundation
import Imago

extension ProcessingOptionsParser {
    /// The longest `filename` kept, in bytes: a header value, not a payload.
    static let maximumFilenameBytes = 255

    /// The output and response options (imgproxy's `format_quality`, `max_bytes`,
    /// `skip_processing`, `raw`, `filename`, `return_attachment`, `keep_copyright`, `preserve_hdr`,
    /// `enforce_thumbnail`); anything else is an unknown option.
    mutating func applyOutput(_ name: Substring, _ arguments: [Substring]) throws(ProcessingPathError) {
        switch name {
        case "fq", "format_quality":
            // imgproxy: pairs of a format and its quality; 0 leaves that format to `q` or the default.
            guard arguments.count % 2 == 0 else {
                throw .badOptions("\(Self.quoted(name)) takes format:quality pairs; missing the quality for \(Self.quoted(arguments[arguments.count - 1]))")
            }
            for index in stride(from: 0, to: arguments.count, by: 2) {
                guard let format = Self.imageFormat(named: arguments[index]) else {
                    throw .badOptions("\(Self.quoted(name)): unknown format \(Self.quoted(arguments[index]))")
                }
                let quality = try Self.integer(arguments[index + 1], in: 0...100, for: name)
                options.formatQualities[format] = quality == 0 ? nil : Double(quality) / 100
            }
        case "mb", "max_bytes":
            try expect(arguments, atMost: 1, for: name)
            let bytes = try Self.signedInteger(arguments[0], digits: 12, for: name)
            guard bytes >= 0 else { throw .badOptions("\(Self.quoted(name)) takes a number of bytes, 0 or more") }
            options.maximumBytes = bytes > 0 ? bytes : nil
        case "skp", "skip_processing":
            for argument in arguments {
                guard let format = Self.imageFormat(named: argument) else {
                    throw .badOptions("\(Self.quoted(name)): unknown format \(Self.quoted(argument))")
                }
                if !options.skipProcessingFormats.contains(format) { options.skipProcessingFormats.append(format) }
            }
        case "raw":
            try expect(arguments, atMost: 1, for: name)
            options.raw = try Self.boolean(arguments[0], for: name)
        case "fn", "filename":
            try expect(arguments, atMost: 2, for: name)
            options.filename = try Self.filename(arguments, for: name)
        case "att", "return_attachment":
            try expect(arguments, atMost: 1, for: name)
            options.returnAttachment = try Self.boolean(arguments[0], for: name)
        case "kcr", "keep_copyright":
            try expect(arguments, atMost: 1, for: name)
            options.keepCopyright = try Self.boolean(arguments[0], for: name)
        case "ph", "preserve_hdr":
            try expect(arguments, atMost: 1, for: name)
            options.preserveHDR = try Self.boolean(arguments[0], for: name)
        case "gm", "gain_map":
            try expect(arguments, atMost: 1, for: name)
            options.keepsGainMap = try Self.boolean(arguments[0], for: name)
        case "eth", "enforce_thumbnail":
            try expect(arguments, atMost: 1, for: name)
            options.enforceThumbnail = try Self.boolean(arguments[0], for: name)
        default:
            throw .badOptions("unknown option \(Self.quoted(name)); known: \(Self.knownOptions) (README, \"imago serve\")")
        }
    }

    /// `name` or `base64url:1`: the name as text (imgproxy's `filename`); empty: none. Control
    /// characters are refused (the name goes into a header; it is encoded there, but a name that
    /// holds a line break is not a file name anyone meant).
    static func filename(_ arguments: [Substring], for name: Substring) throws(ProcessingPathError) -> String? {
        var text = String(arguments[0])
        if arguments.count > 1, !arguments[1].isEmpty, try boolean(arguments[1], for: name) {
            guard let data = Base64URL.decode(arguments[0]), let decoded = String(data: data, encoding: .utf8) else {
                throw .badOptions("\(quoted(name)): \(quoted(arguments[0])) is not base64url-encoded UTF-8")
            }
            text = decoded
        } else {
            // A path segment arrives percent-encoded; imgproxy's router decodes it before parsing.
            text = text.removingPercentEncoding ?? text
        }
        guard text.utf8.count <= maximumFilenameBytes else {
            throw .badOptions("\(quoted(name)) takes at most \(maximumFilenameBytes) bytes, got \(text.utf8.count)")
        }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .badOptions("\(quoted(name)): a file name without control characters")
        }
        return text.isEmpty ? nil : text
    }

    /// A format as imgproxy names them (for `fq` and `skp`): Imago's own (`jpeg`/`jpg`, `png`,
    /// `gif`, `webp`, `avif`, `heic`/`heif`, `jxl`) and the others imgproxy knows (`bmp`, `ico`,
    /// `svg`, `tiff`), which no source here decodes as, so they never match.
    static func imageFormat(named text: Substring) -> ImageFormat? {
        switch text.lowercased() {
        case "jpg", "jpeg": .jpeg
        case "png": .png
        case "gif": .gif
        case "webp": .webp
        case "avif": .avif
        case "heic", "heif": .heif
        case "jxl": .jxl
        case let other where ["bmp", "ico", "svg", "tiff"].contains(other): ImageFormat(rawValue: other)
        default: nil
        }
    }
}
#endif
