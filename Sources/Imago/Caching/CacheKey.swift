/// Names an entry in the memory and disk caches: the URL, plus the processing for a processed
/// variant (see ``ImageRequest/processedKey``).
///
/// The encoding is unambiguous, so two requests that make different images never share an entry:
/// a processed key is the original key, then U+001F (a byte no URL's encoding contains, escaped in
/// a ``ImageRequest/cacheKeyOverride``), then each processing step's identifier prefixed with its
/// UTF-8 length (`14:thumbnail(256)`). A URL whose fragment reads `#thumbnail(256)` therefore stays
/// an unprocessed key.
///
/// A key hashes its text once, when it is made (or its ``rawValue`` changes), and keeps the
/// result: a cache lookup hashes one integer instead of a long URL, and two different keys
/// almost always differ at their first comparison.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The key as stored: also the text a ``DiskCache`` entry carries and checks.
    public var rawValue: String {
        didSet { hashCode = rawValue.hashValue }
    }

    /// `rawValue.hashValue`, computed once. Like every Swift hash it is seeded per process, so it
    /// never leaves memory (disk entries are named by ``StableHash``).
    private var hashCode: Int

    /// A key of exactly `rawValue`; requests make their own (``ImageRequest/originalKey``).
    public init(_ rawValue: String) {
        self.rawValue = rawValue
        self.hashCode = rawValue.hashValue
    }

    /// A key written as a string literal.
    public init(stringLiteral value: String) { self.init(value) }

    public func hash(into hasher: inout Hasher) { hasher.combine(hashCode) }

    public static func == (lhs: CacheKey, rhs: CacheKey) -> Bool {
        lhs.hashCode == rhs.hashCode && lhs.rawValue == rhs.rawValue
    }

    /// The raw value with the processing separator shown as ` | `, for logs and messages.
    public var description: String {
        rawValue.utf8.contains(Self.separator)
            ? String(decoding: rawValue.utf8.flatMap { $0 == Self.separator ? Array(" | ".utf8) : [$0] }, as: UTF8.self)
            : rawValue
    }

    /// Separates an original key from its processing steps. Never in a URL's encoding.
    static let separator: UInt8 = 0x1F
    /// Escapes a separator or itself inside an original key (an override may contain any text).
    static let escape: UInt8 = 0x1E

    /// The key of original bytes named by `text` (a URL or an override): `text` itself, unless it
    /// contains the separator or the escape byte, which are then escaped so that no original key
    /// can spell out a processed one.
    static func original(_ text: String) -> CacheKey {
        // Over the string's own bytes where it has them (a native string always does): a loop the
        // compiler unrolls, where the view's generic iteration took a call per byte.
        let needsEscaping =
            text.utf8.withContiguousStorageIfAvailable { $0.contains { $0 == separator || $0 == escape } }
            ?? text.utf8.contains { $0 == separator || $0 == escape }
        guard needsEscaping else { return CacheKey(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 4)
        for byte in text.utf8 {
            if byte == separator || byte == escape { bytes.append(escape) }
            bytes.append(byte)
        }
        return CacheKey(String(decoding: bytes, as: UTF8.self))
    }

    /// Appends one processing step (an identifier) to this key; the first step adds the separator.
    /// Builds in place, so a processed key costs one string and no intermediate arrays.
    mutating func appendStep(_ identifier: String, isFirst: Bool) {
        var text = rawValue
        rawValue = ""  // leaves `text` the only owner of the storage, so it grows in place
        if isFirst { text.unicodeScalars.append(Unicode.Scalar(Self.separator)) }
        text += String(identifier.utf8.count)
        text += ":"
        text += identifier
        rawValue = text
    }
}
