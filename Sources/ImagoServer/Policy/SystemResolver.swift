#if os(Linux)
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's resolver (getaddrinfo: /etc/hosts and DNS), each lookup on a thread of its own,
/// at most ``maximumOutstandingLookups`` at once and at most ``maximumOutstandingLookupsPerHost``
/// for one host name.
///
/// getaddrinfo blocks and cannot be stopped. A caller that is cancelled (``GuardedDataLoader``
/// cancels at its connect timeout) stops waiting at once; the lookup keeps its thread until the
/// system answers and its answer is dropped. Such lookups still count against the limit, so a DNS
/// server that never answers costs at most that many threads: beyond them a lookup fails at once
/// with a ``ResolutionError`` that says so. The limit per host keeps one name whose DNS server
/// hangs from holding every thread: the other names still resolve.
public struct SystemResolver: HostResolving {
    /// The most lookups blocked in getaddrinfo at once (each holds a thread). Default: 64.
    public var maximumOutstandingLookups: Int { lookups.limit }
    /// The most lookups of one host name blocked at once (a name compared as given, in lower
    /// case). Default: 8; never more than ``maximumOutstandingLookups``.
    public var maximumOutstandingLookupsPerHost: Int { lookups.perKeyLimit }
    private let lookups: BlockingLookups
    private let lookup: @Sendable (String) throws -> [IPAddress]

    /// A resolver that lets at most `maximumOutstandingLookups` lookups block at once, and at most
    /// `maximumOutstandingLookupsPerHost` of one host name.
    public init(maximumOutstandingLookups: Int = 64, maximumOutstandingLookupsPerHost: Int = 8) {
        self.init(
            maximumOutstandingLookups: maximumOutstandingLookups, maximumOutstandingLookupsPerHost: maximumOutstandingLookupsPerHost,
            lookup: Self.systemLookup)
    }

    /// A resolver whose blocking step is `lookup` instead of getaddrinfo (tests: a lookup that hangs).
    init(
        maximumOutstandingLookups: Int, maximumOutstandingLookupsPerHost: Int = 8,
        lookup: @escaping @Sendable (String) throws -> [IPAddress]
    ) {
        self.lookups = BlockingLookups(limit: maximumOutstandingLookups, perKeyLimit: maximumOutstandingLookupsPerHost)
        self.lookup = lookup
    }

    /// Lookups blocked now, including those whose caller has stopped waiting.
    var outstandingLookups: Int { lookups.outstanding }

    public func resolve(host: String) async throws -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        switch try await lookups.run(key: host.lowercased(), { [lookup] in try lookup(host) }) {
        case .success(let addresses):
            return addresses
        case .failure(.total):
            throw ResolutionError.tooManyOutstanding(host: host, limit: lookups.limit)
        case .failure(.key):
            throw ResolutionError.tooManyOutstandingForHost(host: host, limit: lookups.perKeyLimit)
        }
    }

    /// getaddrinfo's addresses for `host`, without duplicates, in its order.
    private static func systemLookup(_ host: String) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            throw ResolutionError(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let entry = cursor {
            if let sockaddr = entry.pointee.ai_addr {
                if entry.pointee.ai_family == AF_INET {
                    sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        let raw = UInt32(bigEndian: pointer.pointee.sin_addr.s_addr)
                        addresses.append(.v4(UInt8(raw >> 24), UInt8((raw >> 16) & 0xFF), UInt8((raw >> 8) & 0xFF), UInt8(raw & 0xFF)))
                    }
                } else if entry.pointee.ai_family == AF_INET6 {
                    sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        let bytes = withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                        addresses.append(.v6(bytes))
                    }
                }
            }
            cursor = entry.pointee.ai_next
        }
        var seen = Set<IPAddress>()
        return addresses.filter { seen.insert($0).inserted }
    }
}
#endif
