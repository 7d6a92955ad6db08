import Foundation

/// Which sources the proxy may fetch: http(s) only, hosts on the allow-list, and addresses on
/// the public internet unless ``allowsPrivateNetworks``. A value: every check returns the
/// refusal, so it is tested without a network.
///
/// The address check runs on the address the loader actually connects to
/// (``GuardedDataLoader`` resolves the name itself, checks, then connects to that address), and
/// again at every redirect hop, so neither DNS rebinding nor a redirect gets past it.
public struct SourcePolicy: Sendable, Hashable {
    /// Allowed source hosts: `example.com` (exactly) or `*.example.com` (any subdomain, not
    /// the domain itself). Empty: any host. Default: empty.
    public var allowedHosts: [String]
    /// Whether loopback, private, link-local, multicast, CGNAT and cloud-metadata addresses may
    /// be fetched (local development, the demo). Default: `false`.
    public var allowsPrivateNetworks: Bool

    /// Addresses fetched even though they are not public (an internal origin that must stay
    /// reachable while the rest of the private networks stay refused). Default: none.
    public var allowedAddresses: Set<IPAddress>

    public init(allowedHosts: [String] = [], allowsPrivateNetworks: Bool = false, allowedAddresses: Set<IPAddress> = []) {
        self.allowedHosts = allowedHosts.map { $0.lowercased() }
        self.allowsPrivateNetworks = allowsPrivateNetworks
        self.allowedAddresses = allowedAddresses
    }

    /// The text every refusal's reason starts with, so the server can tell a refusal (403)
    /// from a transport failure (502) in the loader's errors.
    public static let refusalMarker = "refused by the source policy"

    /// Why `url` may not be fetched (scheme, host), or `nil`.
    public func refusal(for url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return "\(Self.refusalMarker): only http and https sources are fetched"
        }
        guard let host = url.host?.lowercased(), !host.isEmpty else {
            return "\(Self.refusalMarker): the source has no host"
        }
        guard allows(host: host) else {
            return "\(Self.refusalMarker): the host \(host) is not on the allow-list (--allow-host)"
        }
        return nil
    }

    /// Whether `host` is on the allow-list (always, when it is empty).
    public func allows(host: String) -> Bool {
        guard !allowedHosts.isEmpty else { return true }
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        return allowedHosts.contains { pattern in
            if pattern.hasPrefix("*.") {
                let suffix = pattern.dropFirst(1)  // ".example.com"
                return host.hasSuffix(suffix) && host.count > suffix.count
            }
            return host == pattern
        }
    }

    /// Why connecting to `address` (for `host`) is refused, or `nil`.
    public func refusal(for address: IPAddress, host: String) -> String? {
        guard !allowsPrivateNetworks, !allowedAddresses.contains(address), let kind = address.nonPublicKind else { return nil }
        return "\(Self.refusalMarker): \(host) resolves to \(address), a \(kind) address (--allow-private-networks permits it)"
    }
}
