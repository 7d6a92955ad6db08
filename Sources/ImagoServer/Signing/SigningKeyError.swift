#if os(Linux)
/// A signing key or salt that cannot be used, and how to make a good one.
public struct SigningKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
#endif
