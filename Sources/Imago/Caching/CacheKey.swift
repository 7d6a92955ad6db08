/// Names an entry in the memory and disk caches: the URL, plus the processing for a processed
/// variant (see ``ImageRequest/processedKey``).
public struct CacheKey: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }
}
