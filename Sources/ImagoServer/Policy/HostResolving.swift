#if os(Linux)
/// Turns a host name into the addresses to connect to. ``SystemResolver`` asks the system
/// (getaddrinfo); tests inject a table so that a made-up name can resolve to 127.0.0.1.
///
/// ``GuardedDataLoader`` waits for a resolver at most its connect timeout and no longer than its
/// caller wants (cancellation), whether or not the resolver itself stops: an implementation need
/// not enforce a deadline, but one that blocks a thread should bound how many it blocks, as
/// ``SystemResolver`` does.
public protocol HostResolving: Sendable {
    /// Every address of `host`, in the order to try them.
    func resolve(host: String) async throws -> [IPAddress]
}
#endif
