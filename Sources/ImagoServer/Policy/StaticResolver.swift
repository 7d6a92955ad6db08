#if os(Linux)
/// A fixed table of names, then another resolver (by default the system's): for tests and the
/// demo, so that a made-up name can stand for a local server.
public struct StaticResolver: HostResolving {
    /// Addresses by lower-cased host name.
    public var table: [String: [IPAddress]]
    /// Asked for names not in the table (after address literals); `nil`: such names fail.
    public var fallback: (any HostResolving)?

    public init(_ table: [String: [IPAddress]], fallback: (any HostResolving)? = SystemResolver()) {
        self.table = Dictionary(table.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.fallback = fallback
    }

    public func resolve(host: String) async throws -> [IPAddress] {
        if let addresses = table[host.lowercased()] { return addresses }
        if let literal = IPAddress(host) { return [literal] }
        guard let fallback else { throw ResolutionError(host: host, reason: "not in the table") }
        return try await fallback.resolve(host: host)
    }
}
#endif
