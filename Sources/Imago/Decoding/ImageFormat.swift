import Foundation

/// An encoded image format, named by a short lowercase identifier (`jpeg`, `png`…).
///
/// The formats Imago decodes itself are static members (``jpeg``, ``png``, ``gif``, ``webp``,
/// ``heif``, ``avif``, ``jxl``); a decoder you register in an ``ImageDecoderRegistry`` can name its own
/// (`ImageFormat("svg", mimeType: "image/svg+xml")`) and recognise it from the bytes with
/// ``ImageDecoding/recognizeFormat(of:)``. Two formats are equal when their names are.
public struct ImageFormat: RawRepresentable, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The short lowercase name, e.g. `jpeg`.
    public let rawValue: String
    private let declaredMIMEType: String?

    /// The format named `rawValue` (lowercase, as in ``jpeg``).
    public init(rawValue: String) {
        self.rawValue = rawValue
        self.declaredMIMEType = nil
    }

    /// A format of your own, with its MIME type (default: `image/<name>`).
    public init(_ name: String, mimeType: String? = nil) {
        self.rawValue = name
        self.declaredMIMEType = mimeType
    }

    /// JPEG (`image/jpeg`).
    public static let jpeg = ImageFormat(rawValue: "jpeg")
    /// PNG (`image/png`), APNG included.
    public static let png = ImageFormat(rawValue: "png")
    /// GIF (`image/gif`), still or animated.
    public static let gif = ImageFormat(rawValue: "gif")
    /// WebP (`image/webp`), still or animated.
    public static let webp = ImageFormat(rawValue: "webp")
    /// HEIF and its HEVC-coded flavour HEIC (`ftyp` brands heic, heix, hevc, mif1, msf1).
    public static let heif = ImageFormat(rawValue: "heif")
    /// AVIF, still (`avif`) or animated (`avis`).
    public static let avif = ImageFormat(rawValue: "avif")
    /// JPEG XL (`image/jxl`), still or animated: the bare codestream (`FF 0A`) or its ISO BMFF
    /// container (a `JXL ` signature box). Decoded by libjxl on Linux, ImageIO on Apple platforms.
    public static let jxl = ImageFormat(rawValue: "jxl")

    /// The formats Imago recognises and decodes without help.
    public static let allCases: [ImageFormat] = [.jpeg, .png, .gif, .webp, .heif, .avif, .jxl]

    /// The first 12 bytes of a JPEG XL container: its `JXL ` signature box.
    static let jxlContainerSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    /// Formats are equal when their names are.
    public static func == (lhs: ImageFormat, rhs: ImageFormat) -> Bool { lhs.rawValue == rhs.rawValue }
    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// Decodes the name, as a single string.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the name, as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The built-in format whose signature starts `data`, or `nil` when no known signature matches.
    ///
    /// Only the bytes decide: a URL's extension or a `Content-Type` header can lie (an HTML error
    /// page served as `image/jpeg` is common), the signature cannot. HEIF and AVIF are told apart
    /// by the brands of their `ftyp` box; JPEG XL by its codestream's `FF 0A` or its container's
    /// signature box. Package access: the public sniffer is
    /// ``ImageDecoderRegistry/sniff(_:)``, which also knows the formats of registered decoders.
    package static func sniff(_ data: some Collection<UInt8>) -> ImageFormat? {
        let bytes = Array(data.prefix(16))
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count
                && Array(bytes[offset..<offset + signature.count]) == signature
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        if starts(with: Array("ftyp".utf8), at: 4) { return sniffFileType(Array(data.prefix(256))) }
        if starts(with: [0xFF, 0x0A]) || starts(with: jxlContainerSignature) { return .jxl }
        return nil
    }

    /// HEIF or AVIF from an `ftyp` box: the major brand first, then the compatible brands (an AVIF
    /// often declares the generic `mif1` as its major brand and `avif` among the compatible ones).
    private static func sniffFileType(_ bytes: [UInt8]) -> ImageFormat? {
        let declared = (Int(bytes[0]) << 24) | (Int(bytes[1]) << 16) | (Int(bytes[2]) << 8) | Int(bytes[3])
        let end = min(declared, bytes.count)
        guard end >= 12 else { return nil }
        func brand(at offset: Int) -> String { String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }
        var brands = [brand(at: 8)]
        var offset = 16  // major brand (4) and minor version (4) precede the compatible brands
        while offset + 4 <= end {
            brands.append(brand(at: offset))
            offset += 4
        }
        let avif: Set = ["avif", "avis"]
        let heif: Set = ["heic", "heix", "hevc", "hevx", "heim", "heis"]
        let generic: Set = ["mif1", "msf1"]
        if avif.contains(brands[0]) { return .avif }
        if heif.contains(brands[0]) { return .heif }
        if brands.contains(where: avif.contains) { return .avif }
        if brands.contains(where: heif.contains) || generic.contains(brands[0]) { return .heif }
        return nil
    }

    /// The usual MIME type, for `Accept` headers and encoders.
    public var mimeType: String { declaredMIMEType ?? "image/\(rawValue)" }

    /// The name in capitals: `JPEG`.
    public var description: String { rawValue.uppercased() }
}
