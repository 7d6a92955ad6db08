#if os(Linux)
/// A host name that did not resolve: the system's answer, or a lookup refused because too many
/// are already waiting for the system.
public struct ResolutionError: Error, Sendable, CustomStringConvertible {
    /// The name that was looked up.
    public var host: String
    /// Why it did not resolve, in the system's words or ours.
    public var reason: String

    init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }

    public var description: String { "\(host) could not be resolved: \(reason)" }

    /// The lookup was not started: `limit` lookups are already blocked in the system resolver.
    static func tooManyOutstanding(host: String, limit: Int) -> ResolutionError {
        ResolutionError(
            host: host,
            reason: "\(limit) DNS lookups are already waiting for the system resolver (the limit), so this one was refused")
    }

    /// The lookup was not started: `limit` lookups of the same host are already blocked in the
    /// system resolver (its DNS server is probably not answering).
    static func tooManyOutstandingForHost(host: String, limit: Int) -> ResolutionError {
        ResolutionError(
            host: host,
            reason: "\(limit) DNS lookups of this host are already waiting for the system resolver (the limit per host), "
                + "so this one was refused; its DNS server may not be answering")
    }
}
#endif
