/// Reads the first IFD of an EXIF TIFF structure and writes what imgproxy keeps of it: a fresh,
/// minimal TIFF (never the source's structure patched), so no offset of the source survives.
enum EXIFFilter {
    static let artistTag = 0x013B
    static let copyrightTag = 0x8298
    static let orientationTag = 0x0112

    /// One IFD entry as read: its tag, type, count and value bytes.
    struct Entry: Equatable {
        var tag: Int
        var type: Int
        var count: Int
        var value: [UInt8]
    }

    /// A TIFF structure (little-endian) with IFD0's `Artist` and `Copyright` entries only, values
    /// as they were; `nil` when `tiff` has neither or its IFD0 cannot be read.
    static func copyright(_ tiff: [UInt8]) -> [UInt8]? {
        guard let entries = ifd0(tiff, tags: [artistTag, copyrightTag]), !entries.isEmpty else { return nil }
        return write(entries)
    }

    /// `tiff` with IFD0's `Orientation` set to 1 (top-left) when it said otherwise; the bytes
    /// unchanged when there is none; `nil` (the EXIF dropped) when the tag is there but cannot be
    /// rewritten safely.
    static func uprighted(_ tiff: [UInt8]) -> [UInt8]? {
        guard let layout = header(tiff) else { return nil }
        var result = tiff
        let found: Bool? = tiff.withUnsafeBufferPointer { buffer in
            let bytes = MetadataBytes(buffer)
            guard let count = bytes.uint16(layout.ifd, bigEndian: layout.bigEndian) else { return nil }
            for index in 0..<count {
                let entry = layout.ifd + 2 + index * 12
                guard let tag = bytes.uint16(entry, bigEndian: layout.bigEndian) else { return nil }
                guard tag == orientationTag else { continue }
                guard bytes.uint16(entry + 2, bigEndian: layout.bigEndian) == 3, bytes.uint32(entry + 4, bigEndian: layout.bigEndian) == 1,
                    bytes.slice(entry + 8, length: 2) != nil
                else { return nil }
                result[entry + 8] = layout.bigEndian ? 0 : 1
                result[entry + 9] = layout.bigEndian ? 1 : 0
                return true
            }
            return false
        }
        return found == nil ? nil : result
    }

    /// The byte order and IFD0's offset of `tiff`.
    static func header(_ tiff: [UInt8]) -> (bigEndian: Bool, ifd: Int)? {
        tiff.withUnsafeBufferPointer { buffer in
            let bytes = MetadataBytes(buffer)
            let bigEndian: Bool
            if bytes.matches(0, [0x4D, 0x4D]) { bigEndian = true }
            else if bytes.matches(0, [0x49, 0x49]) { bigEndian = false }
            else { return nil }
            guard bytes.uint16(2, bigEndian: bigEndian) == 42, let ifd = bytes.uint32(4, bigEndian: bigEndian), ifd >= 8 else { return nil }
            return (bigEndian, ifd)
        }
    }

    /// The entries of IFD0 whose tag is in `tags`, with their values; `nil` when the IFD or a
    /// wanted value lies outside `tiff`.
    static func ifd0(_ tiff: [UInt8], tags: Set<Int>) -> [Entry]? {
        guard let layout = header(tiff) else { return nil }
        return tiff.withUnsafeBufferPointer { buffer -> [Entry]? in
            let bytes = MetadataBytes(buffer)
            let order = layout.bigEndian
            guard let count = bytes.uint16(layout.ifd, bigEndian: order), bytes.slice(layout.ifd + 2, length: count * 12) != nil else {
                return nil
            }
            var entries: [Entry] = []
            for index in 0..<count {
                let entry = layout.ifd + 2 + index * 12
                guard let tag = bytes.uint16(entry, bigEndian: order), tags.contains(tag),
                    !entries.contains(where: { $0.tag == tag }),
                    let type = bytes.uint16(entry + 2, bigEndian: order), let valueCount = bytes.uint32(entry + 4, bigEndian: order)
                else { continue }
                // ASCII, BYTE or UNDEFINED: one byte a value, no byte order to convert.
                guard [1, 2, 7].contains(type), valueCount > 0, valueCount <= ImageMetadata.maximumBlockSize else { return nil }
                let start: Int
                if valueCount <= 4 {
                    start = entry + 8
                } else {
                    guard let offset = bytes.uint32(entry + 8, bigEndian: order) else { return nil }
                    start = offset
                }
                guard let value = bytes.slice(start, length: valueCount) else { return nil }
                entries.append(Entry(tag: tag, type: type, count: valueCount, value: Array(value)))
            }
            return entries
        }
    }

    /// A little-endian TIFF structure of one IFD holding `entries` (one-byte types), sorted by tag.
    static func write(_ entries: [Entry]) -> [UInt8] {
        let sorted = entries.sorted { $0.tag < $1.tag }
        var output: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]
        output += le16(sorted.count)
        var data: [UInt8] = []
        let dataStart = 8 + 2 + sorted.count * 12 + 4
        for entry in sorted {
            output += le16(entry.tag) + le16(entry.type) + le32(entry.count)
            if entry.value.count <= 4 {
                output += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
            } else {
                output += le32(dataStart + data.count)
                data += entry.value
                if data.count & 1 == 1 { data.append(0) }
            }
        }
        output += le32(0)  // no next IFD
        return output + data
    }

    static func le16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
    static func le32(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
    }
}
