import Foundation

extension DiskCache {
    /// An entry read back from the disk cache: the payload and what was stored with it.
    public struct Entry: Sendable, Hashable {
        /// The key the entry was stored under (checked on every read).
        public var key: CacheKey
        /// The payload: the original image bytes, or an encoded processed variant.
        public var data: Data
        /// Small strings stored with the payload, such as the HTTP validators `ETag` and
        /// `Last-Modified` used to revalidate an expired entry.
        public var metadata: [String: String]
        /// When the entry was stored or last refreshed.
        public var createdAt: Date
        /// When the entry stops being fresh; nil means never.
        public var expiresAt: Date?
        /// Whether the entry had expired when it was read (only returned with `allowExpired: true`).
        public var isExpired: Bool
    }
}

/// The binary header at the start of every entry file, followed by the payload.
///
/// All integers are little-endian; times are `Date.timeIntervalSinceReferenceDate` as IEEE 754
/// doubles, so they round-trip exactly.
///
/// ```
///  0  magic "IMGO"            4  format version (UInt16)   6  flags (bit 0: has expiry)
///  8  header length (UInt32)  12 key length (UInt32)       16 metadata pair count (UInt32)
/// 20  payload CRC-32          24 payload length (UInt64)
/// 32  created at (Float64)    40 expires at (Float64, 0 when there is no expiry)
/// 48  key (UTF-8), then per metadata pair: UInt32 length, UTF-8 name, UInt32 length, UTF-8 value
///     (pairs sorted by name), then the checksum of every header byte before it (UInt32)
/// ```
///
/// Both checksums are CRC-32C in format version 2 (written since the checksum moved to the CPU's
/// crc32c instructions) and zlib's CRC-32 in version 1; both versions are read, each verified with
/// its own checksum, so a cache written by an older build keeps serving.
struct EntryHeader: Equatable {
    static let magic: [UInt8] = Array("IMGO".utf8)
    /// The version new entries are written in.
    static let formatVersion: UInt16 = 2
    /// The versions a read accepts.
    static let readableVersions: ClosedRange<UInt16> = 1...2
    /// Bytes before the key.
    static let fixedLength = 48
    /// A header longer than this is treated as corrupt rather than allocated.
    static let maximumLength = 1 << 20

    var key: String
    var payloadLength: Int
    var payloadChecksum: UInt32
    var createdAt: Date
    var expiresAt: Date?
    var metadata: [String: String]
    /// The format version, which names the checksum of the header and the payload.
    var version: UInt16 = EntryHeader.formatVersion

    /// The checksum that `version` uses: CRC-32C from version 2, zlib's CRC-32 before.
    static func checksum(_ bytes: UnsafeRawBufferPointer, version: UInt16) -> UInt32 {
        version >= 2 ? Checksum.crc32c(bytes) : Checksum.crc32(bytes)
    }

    /// The checksum of a payload, for a header of the current format version.
    static func payloadChecksum(_ payload: some ContiguousBytes) -> UInt32 {
        payload.withUnsafeBytes { checksum($0, version: formatVersion) }
    }

    /// What decoding the first bytes of a file found.
    enum Decoded: Equatable {
        /// A valid header of `length` bytes; the payload starts there.
        case header(EntryHeader, length: Int)
        /// The header is valid so far but `length` bytes are needed to read all of it.
        case needsBytes(length: Int)
        /// Not an entry header, or a damaged one.
        case invalid
    }

    func encoded() -> [UInt8] {
        let pairs = metadata.sorted { $0.key < $1.key }
        let variableLength = key.utf8.count + pairs.reduce(0) { $0 + 8 + $1.key.utf8.count + $1.value.utf8.count }
        let length = Self.fixedLength + variableLength + 4
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        bytes += Self.magic
        bytes.appendLittleEndian(version)
        bytes.appendLittleEndian(UInt16(expiresAt == nil ? 0 : 1))
        bytes.appendLittleEndian(UInt32(length))
        bytes.appendLittleEndian(UInt32(key.utf8.count))
        bytes.appendLittleEndian(UInt32(pairs.count))
        bytes.appendLittleEndian(payloadChecksum)
        bytes.appendLittleEndian(UInt64(payloadLength))
        bytes.appendLittleEndian(createdAt.timeIntervalSinceReferenceDate.bitPattern)
        bytes.appendLittleEndian((expiresAt?.timeIntervalSinceReferenceDate ?? 0).bitPattern)
        bytes += key.utf8
        for (name, value) in pairs {
            bytes.appendLittleEndian(UInt32(name.utf8.count))
            bytes += name.utf8
            bytes.appendLittleEndian(UInt32(value.utf8.count))
            bytes += value.utf8
        }
        let headerChecksum = bytes.withUnsafeBytes { Self.checksum($0, version: version) }
        bytes.appendLittleEndian(headerChecksum)
        return bytes
    }

    /// Why bytes are not a whole entry header.
    enum ParseError: Swift.Error, Equatable, CustomStringConvertible {
        /// The bytes are a valid start of a header of `length` bytes, but fewer were given.
        case truncated(length: Int)
        /// Not an entry header (bad magic, version, lengths or checksum), or a damaged one.
        case invalid

        var description: String {
            switch self {
            case .truncated(let length): "The entry header is cut short: it needs \(length) bytes."
            case .invalid: "The bytes are not a disk-cache entry header, or a damaged one."
            }
        }
    }

    /// Parses the header at the start of `bytes` (an entry file, or any bytes at all): the entry
    /// point for fuzzing. Never traps; every malformed input is a thrown ``ParseError``.
    /// - Returns: the header and its length, where the payload starts.
    static func parse(_ bytes: [UInt8]) throws(ParseError) -> (header: EntryHeader, length: Int) {
        let decoded = bytes.withUnsafeBytes { decode($0) }
        switch decoded {
        case .header(let header, let length): return (header, length)
        case .needsBytes(let length): throw .truncated(length: length)
        case .invalid: throw .invalid
        }
    }

    /// Decodes a header from the first bytes of a file; never traps on any input. A reader that
    /// knows which key it looks for passes it as `expectedKey`: a stored key with the same bytes
    /// is then that string, neither validated nor copied again.
    static func decode(_ bytes: UnsafeRawBufferPointer, expectedKey: String? = nil) -> Decoded {
        var reader = FieldCursor(bytes: bytes)
        guard bytes.count >= fixedLength, reader.bytes(4).map({ $0.elementsEqual(magic) }) == true,
            let version = reader.integer(UInt16.self), readableVersions.contains(version),
            let flags = reader.integer(UInt16.self),
            let length = reader.integer(UInt32.self).map(Int.init),
            length >= fixedLength + 4, length <= maximumLength
        else { return .invalid }
        guard bytes.count >= length else { return .needsBytes(length: length) }
        let checked = UnsafeRawBufferPointer(rebasing: bytes[0..<(length - 4)])
        let storedChecksum = bytes.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
        guard UInt32(littleEndian: storedChecksum) == checksum(checked, version: version) else { return .invalid }
        reader = FieldCursor(bytes: UnsafeRawBufferPointer(rebasing: bytes[8..<(length - 4)]))
        _ = reader.integer(UInt32.self)
        guard let keyLength = reader.integer(UInt32.self), let pairCount = reader.integer(UInt32.self),
            let payloadChecksum = reader.integer(UInt32.self),
            let payloadLength = reader.integer(UInt64.self), payloadLength <= UInt64(Int.max),
            let created = reader.integer(UInt64.self), let expires = reader.integer(UInt64.self),
            let key = reader.string(length: Int(keyLength), reusing: expectedKey)
        else { return .invalid }
        var metadata: [String: String] = [:]
        for _ in 0..<pairCount {
            guard let nameLength = reader.integer(UInt32.self), let name = reader.string(length: Int(nameLength)),
                let valueLength = reader.integer(UInt32.self), let value = reader.string(length: Int(valueLength))
            else { return .invalid }
            metadata[name] = value
        }
        guard reader.isAtEnd else { return .invalid }
        let header = EntryHeader(
            key: key, payloadLength: Int(payloadLength), payloadChecksum: payloadChecksum,
            createdAt: Date(timeIntervalSinceReferenceDate: Double(bitPattern: created)),
            expiresAt: flags & 1 == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(bitPattern: expires)),
            metadata: metadata, version: version)
        return .header(header, length: length)
    }
}

/// Reads an entry header's little-endian fields in order, returning nil instead of reading past the
/// end. (Unlike the image decoders' `ByteReader`, it walks a raw buffer sequentially.)
private struct FieldCursor {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
        bytes(MemoryLayout<T>.size).map { T(littleEndian: $0.loadUnaligned(as: T.self)) }
    }

    mutating func string(length: Int) -> String? {
        bytes(length).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The string of the next `length` bytes: `candidate` itself when its UTF-8 is those bytes.
    mutating func string(length: Int, reusing candidate: String?) -> String? {
        guard var candidate else { return string(length: length) }
        guard let field = bytes(length) else { return nil }
        let same = candidate.utf8.count == length && candidate.withUTF8 { utf8 in
            length == 0 || memcmp(utf8.baseAddress!, field.baseAddress!, length) == 0
        }
        return same ? candidate : String(validating: field, as: UTF8.self)
    }
}

extension [UInt8] {
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
