import Foundation

/// An encoded image format Imago recognises by its leading bytes.
public enum ImageFormat: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case jpeg
    case png
    case gif
    case webp

    /// The format whose signature starts `data`, or `nil` when no known signature matches.
    ///
    /// Only the bytes decide: a URL's extension or a `Content-Type` header can lie (an HTML error
    /// page served as `image/jpeg` is common), the signature cannot.
    public static func sniff(_ data: some Collection<UInt8>) -> ImageFormat? {
        let bytes = Array(data.prefix(16))
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count
                && Array(bytes[offset..<offset + signature.count]) == signature
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        return nil
    }

    /// The usual MIME type, for `Accept` headers and encoders.
    public var mimeType: String { "image/\(rawValue)" }

    public var description: String { rawValue.uppercased() }
}
