#if os(Linux)
import Foundation
import Imago

/// The `Content-Disposition` value of a response (imgproxy's `filename` and `return_attachment`):
/// `inline` or `attachment`, with a file name made of the URL's `filename` (else the source URL's
/// last path component without its extension, else `image`) and the output's extension.
///
/// The name is untrusted text from the URL, so it is written twice, per RFC 6266: `filename="…"`
/// holds printable ASCII only (anything else becomes `_`, `"` and `\` included), and, when that
/// lost anything, `filename*=UTF-8''…` holds the whole name percent-encoded (RFC 5987). No byte of
/// the URL reaches the header unescaped, so a name cannot end the header or add another.
struct ContentDisposition: Sendable, Hashable {
    /// `attachment` rather than `inline`.
    var isAttachment: Bool
    /// The file name, extension included.
    var filename: String

    /// The disposition of a response to `options` made from `source`, written as `format`.
    init(options: ProcessingOptions, source: URL, format: ImageFormat) {
        let stem = options.filename ?? Self.stem(of: source)
        self.isAttachment = options.returnAttachment
        self.filename = (stem.isEmpty ? "image" : stem) + "." + Self.fileExtension(of: format)
    }

    /// The last path component of `source` without its extension.
    static func stem(of source: URL) -> String {
        let last = source.lastPathComponent
        guard last != "/", !last.isEmpty else { return "" }
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return last }
        return String(last[..<dot])
    }

    /// The usual extension of `format` (`jpg` for JPEG, as imgproxy writes it).
    static func fileExtension(of format: ImageFormat) -> String {
        switch format {
        case .jpeg: "jpg"
        case .heif: "heic"
        default: format.rawValue.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// The header's value.
    var headerValue: String {
        let kind = isAttachment ? "attachment" : "inline"
        let fallback = String(
            filename.unicodeScalars.map { scalar -> Character in
                (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\" ? Character(scalar) : "_"
            })
        var value = "\(kind); filename=\"\(fallback)\""
        if fallback != filename {
            value += "; filename*=UTF-8''" + Self.percentEncoded(filename)
        }
        return value
    }

    /// RFC 5987's `value-chars`: `attr-char`s as they are, every other byte as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~".utf8)
        let digits = Array("0123456789ABCDEF")
        var result = ""
        for byte in text.utf8 {
            if allowed.contains(byte) {
                result.append(Character(Unicode.Scalar(byte)))
            } else {
                result += "%" + String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
            }
        }
        return result
    }
}
#endif
