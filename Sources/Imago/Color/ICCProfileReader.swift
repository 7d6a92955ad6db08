import Foundation

/// Reads what Imago needs of an ICC profile (ICC.1:2010 and version 2) from hostile bytes: the
/// header's size, colour space and version, and the description tag (`desc`, either the version 2
/// `textDescriptionType` or the version 4 `multiLocalizedUnicodeType`).
///
/// Every offset and count is checked against the bytes with overflow-checked arithmetic; what is
/// malformed is a ``ColorProfile/Failure`` that says what, never a trap. Little CMS reads the rest
/// when a transform is built.
enum ICCProfileReader {
    struct Header {
        var data: Data
        var colorSpace: ColorProfile.ColorSpace
        var version: String
        var description: String?
    }

    /// The ICC header is 128 bytes, then a tag count.
    static let headerSize = 128
    /// Longest description kept, in characters.
    static let maximumDescriptionLength = 256

    static func read(_ data: Data) throws(ColorProfile.Failure) -> Header {
        let bytes = ByteReader(data)
        guard bytes.count >= headerSize + 4 else {
            throw failure("\(bytes.count) bytes is shorter than an ICC header (132 bytes)")
        }
        guard let declared = bytes.uint32BE(at: 0).flatMap({ Int(exactly: $0) }) else { throw failure("no size") }
        guard declared >= headerSize + 4 else { throw failure("its size field says \(declared) bytes, less than its header") }
        guard declared <= bytes.count else {
            throw failure("its size field says \(declared) bytes but \(bytes.count) are present (cut short?)")
        }
        guard bytes.ascii(at: 36, count: 4) == "acsp" else { throw failure("no 'acsp' signature: not an ICC profile") }
        let profile = ByteReader(Data(data.prefix(declared)))
        let colorSpace: ColorProfile.ColorSpace =
            switch profile.ascii(at: 16, count: 4) {
            case "RGB ": .rgb
            case "GRAY": .gray
            case "CMYK": .cmyk
            default: .other
            }
        let major = profile[8]
        let minor = profile[9] >> 4
        let description = try readDescription(profile)
        return Header(
            data: Data(data.prefix(declared)), colorSpace: colorSpace, version: "\(major).\(minor)",
            description: description)
    }

    /// The `desc` tag's text, or nil when there is none; a tag table that runs past the profile fails.
    private static func readDescription(_ bytes: ByteReader) throws(ColorProfile.Failure) -> String? {
        guard let count = bytes.uint32BE(at: headerSize).flatMap({ Int(exactly: $0) }) else { return nil }
        let tableEnd = count.multipliedReportingOverflow(by: 12)
        guard !tableEnd.overflow, headerSize + 4 + tableEnd.partialValue <= bytes.count else {
            throw failure("its tag table of \(count) tags runs past its \(bytes.count) bytes")
        }
        for index in 0..<count {
            let entry = headerSize + 4 + index * 12
            guard bytes.ascii(at: entry, count: 4) == "desc",
                let offset = bytes.uint32BE(at: entry + 4).flatMap({ Int(exactly: $0) }),
                let size = bytes.uint32BE(at: entry + 8).flatMap({ Int(exactly: $0) })
            else { continue }
            let (end, overflow) = offset.addingReportingOverflow(size)
            guard !overflow, size >= 12, end <= bytes.count else {
                throw failure("its description tag runs past its \(bytes.count) bytes")
            }
            return text(bytes, offset: offset, size: size)
        }
        return nil
    }

    /// The text of a `desc` (ASCII) or `mluc` (UTF-16, the first record: English where present)
    /// tag at `offset`; nil for any other type or when the text does not fit its tag.
    private static func text(_ bytes: ByteReader, offset: Int, size: Int) -> String? {
        let end = offset + size
        switch bytes.ascii(at: offset, count: 4) {
        case "desc":
            guard let length = bytes.uint32BE(at: offset + 8).flatMap({ Int(exactly: $0) }),
                length <= size - 12
            else { return nil }
            let characters = (0..<length).map { bytes[offset + 12 + $0] }.prefix { $0 != 0 }
            return clean(String(decoding: characters, as: UTF8.self))
        case "mluc":
            guard let records = bytes.uint32BE(at: offset + 8).flatMap({ Int(exactly: $0) }),
                let recordSize = bytes.uint32BE(at: offset + 12).flatMap({ Int(exactly: $0) }), recordSize >= 12,
                records > 0
            else { return nil }
            var chosen: (length: Int, start: Int)?
            for record in 0..<min(records, 64) {
                let at = offset + 16 + record * recordSize
                guard at + 12 <= end, let length = bytes.uint32BE(at: at + 4).flatMap({ Int(exactly: $0) }),
                    let start = bytes.uint32BE(at: at + 8).flatMap({ Int(exactly: $0) })
                else { break }
                if chosen == nil || bytes.ascii(at: at, count: 2) == "en" {
                    chosen = (length, start)
                    if bytes.ascii(at: at, count: 2) == "en" { break }
                }
            }
            guard let (length, start) = chosen else { return nil }
            let (first, overflow) = offset.addingReportingOverflow(start)
            guard !overflow, length <= end - first, first >= offset else { return nil }
            var units: [UInt16] = []
            var at = first
            while at + 2 <= first + length, units.count < maximumDescriptionLength, let unit = bytes.uint16BE(at: at) {
                if unit == 0 { break }
                units.append(unit)
                at += 2
            }
            return clean(String(decoding: units, as: UTF16.self))
        default:
            return nil
        }
    }

    /// Trimmed, printable, at most ``maximumDescriptionLength`` characters; nil when empty.
    private static func clean(_ text: String) -> String? {
        let printable = String(text.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }.map(Character.init))
            .trimmingCharacters(in: .whitespaces)
        return printable.isEmpty ? nil : String(printable.prefix(maximumDescriptionLength))
    }

    private static func failure(_ text: String) -> ColorProfile.Failure {
        ColorProfile.Failure(description: "the ICC profile is malformed: \(text)")
    }
}
