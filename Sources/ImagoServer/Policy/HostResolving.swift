import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a host name into the addresses to connect to. ``SystemResolver`` asks the system
/// (getaddrinfo); tests inject a table so that a made-up name can resolve to 127.0.0.1.
public protocol HostResolving: Sendable {
    /// Every address of `host`, in the order to try them.
    func resolve(host: String) async throws -> [IPAddress]
}

/// The system's resolver (getaddrinfo, /etc/hosts and DNS), run off the cooperative pool.
public struct SystemResolver: HostResolving {
    public init() {}

    public func resolve(host: String) async throws -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try Self.lookup(host) })
            }
        }
    }

    private static func lookup(_ host: String) throws -> [IPAddress] {
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

/// A host name that did not resolve.
public struct ResolutionError: Error, Sendable, CustomStringConvertible {
    public var host: String
    public var reason: String
    public var description: String { "\(host) could not be resolved: \(reason)" }
}

/// A fixed table of names, then the system: for tests and the demo.
public struct StaticResolver: HostResolving {
    public var table: [String: [IPAddress]]
    public var fallback: (any HostResolving)?

    public init(_ table: [String: [IPAddress]], fallback: (any HostResolving)? = SystemResolver()) {
        self.table = Dictionary(uniqueKeysWithValues: table.map { ($0.key.lowercased(), $0.value) })
        self.fallback = fallback
    }

    public func resolve(host: String) async throws -> [IPAddress] {
        if let addresses = table[host.lowercased()] { return addresses }
        if let literal = IPAddress(host) { return [literal] }
        guard let fallback else { throw ResolutionError(host: host, reason: "not in the table") }
        return try await fallback.resolve(host: host)
    }
}
