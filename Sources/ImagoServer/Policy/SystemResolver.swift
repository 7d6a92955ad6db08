#if os(Linux)
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's resolver (getaddrinfo: /etc/hosts and DNS), each lookup on a thread of its own,
/// at most ``maximumOutstandingLookups`` at once.
///
/// getaddrinfo blocks and cannot be stopped. A caller that is cancelled (``GuardedDataLoader``
/// cancels at its connect timeout) stops waiting at once; the lookup keeps its thread until the
/// system answers and its answer is dropped. Such lookups still count against the limit, so a DNS
/// server that never answers costs at most that many threads: beyond them a lookup fails at once
/// with a ``ResolutionError`` that says so.
public struct SystemResolver: HostResolving {
    /// The most lookups blocked in getaddrinfo at once (each holds a thread). Default: 64.
    public var maximumOutstandingLookups: Int { lookups.limit }
    private let lookups: BlockingLookups
    private let lookup: @Sendable (String) throws -> [IPAddress]

    /// A resolver that lets at most `maximumOutstandingLookups` lookups block at once.
    public init(maximumOutstandingLookups: Int = 64) {
        self.init(maximumOutstandingLookups: maximumOutstandingLookups, lookup: Self.systemLookup)
    }

    /// A resolver whose blocking step is `lookup` instead of getaddrinfo (tests: a lookup that hangs).
    init(maximumOutstandingLookups: Int, lookup: @escaping @Sendable (String) throws -> [IPAddress]) {
        self.lookups = BlockingLookups(limit: maximumOutstandingLookups)
        self.lookup = lookup
    }

    /// Lookups blocked now, including those whose caller has stopped waiting.
    var outstandingLookups: Int { lookups.outstanding }

    public func resolve(host: String) async throws -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        guard let addresses = try await lookups.run({ [lookup] in try lookup(host) }) else {
            throw ResolutionError.tooManyOutstanding(host: host, limit: lookups.limit)
        }
        return addresses
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
