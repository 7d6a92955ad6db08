#if os(Linux)
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
    /// be fetched (local development, the demo), every non-public block at once. Default: `false`.
    public var allowsPrivateNetworks: Bool
    /// Whether loopback addresses (127.0.0.0/8, ::1, and the unspecified 0.0.0.0 and ::) may be
    /// fetched, imgproxy's `IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES`. Default: `false`, as imgproxy.
    public var allowsLoopbackAddresses: Bool = false
    /// Whether private-use addresses (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, CGNAT's
    /// 100.64.0.0/10, fc00::/7) may be fetched, imgproxy's `IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES`.
    /// Default: `false` (imgproxy's is `true`: here an internal network stays closed unless opened).
    public var allowsPrivateAddresses: Bool = false
    /// Whether link-local addresses (169.254.0.0/16 with cloud metadata, fe80::/10, and link-local
    /// multicast) may be fetched, imgproxy's `IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES`.
    /// Default: `false`, as imgproxy.
    public var allowsLinkLocalAddresses: Bool = false

    /// Addresses fetched even though they are not public (an internal origin that must stay
    /// reachable while the rest of the private networks stay refused). Default: none.
    public var allowedAddresses: Set<IPAddress>

    /// Non-public addresses fetched on one port only (`imago serve --demo`'s own loopback origin,
    /// while every other port of that address stays refused). Default: none.
    public var allowedEndpoints: Set<Endpoint>

    /// Whether `local:///path` sources may be fetched: `true` when the proxy has a local
    /// filesystem root (``ImageProxyConfiguration/localFilesystemRoot``), which
    /// ``LocalFileDataLoader`` confines them to. Default: `false`.
    public var allowsLocalFiles: Bool = false

    /// Whether `s3://bucket/key` sources may be fetched: `true` when the proxy has an S3
    /// configuration (``ImageProxyConfiguration/s3``), whose endpoint ``S3DataLoader`` fetches
    /// them from. Default: `false`.
    public var allowsS3: Bool = false

    /// URL prefixes a source must start with (imgproxy's `IMGPROXY_ALLOWED_SOURCES`), `*` matching
    /// any run of characters other than `/`; e.g. `https://images.example.com/`, `local:///`,
    /// `https://*.example.com/`. Empty: any source the other rules allow. Default: empty.
    public var allowedSources: [String] = []

    /// An address and a TCP port.
    public struct Endpoint: Sendable, Hashable {
        public var address: IPAddress
        public var port: Int

        public init(_ address: IPAddress, port: Int) {
            self.address = address
            self.port = port
        }
    }

    public init(
        allowedHosts: [String] = [], allowsPrivateNetworks: Bool = false, allowedAddresses: Set<IPAddress> = [],
        allowedEndpoints: Set<Endpoint> = []
    ) {
        self.allowedHosts = allowedHosts.map { $0.lowercased() }
        self.allowsPrivateNetworks = allowsPrivateNetworks
        self.allowedAddresses = allowedAddresses
        self.allowedEndpoints = allowedEndpoints
    }

    /// The text every refusal's reason starts with, so the server can tell a refusal (403)
    /// from a transport failure (502) in the loader's errors.
    public static let refusalMarker = "refused by the source policy"

    /// Why `url` may not be fetched (scheme, host), or `nil`. The reason is for the operator's
    /// log; ``clientMessage(forLoaderReason:)`` gives what a client may see.
    public func refusal(for url: URL) -> String? {
        if !allowedSources.isEmpty, !allowedSources.contains(where: { Self.matches(url.absoluteString, prefix: $0) }) {
            return Refusal.sourceNotAllowed.reason(detail: "\(url.absoluteString) starts with none of IMGPROXY_ALLOWED_SOURCES")
        }
        if allowsLocalFiles, url.scheme?.lowercased() == LocalFileDataLoader.scheme { return nil }
        if allowsS3, url.scheme?.lowercased() == S3DataLoader.scheme { return nil }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return Refusal.scheme.reason(detail: "the source's scheme is '\(url.scheme ?? "")'")
        }
        guard let host = url.host?.lowercased(), !host.isEmpty else {
            return Refusal.missingHost.reason(detail: nil)
        }
        guard allows(host: host) else {
            return Refusal.hostNotAllowed.reason(detail: "\(host) is not on it (--allow-host)")
        }
        return nil
    }

    /// Whether `text` starts with `pattern`, each `*` of which matches any run of characters
    /// other than `/` (imgproxy's reading of `IMGPROXY_ALLOWED_SOURCES`).
    static func matches(_ text: String, prefix pattern: String) -> Bool {
        func match(_ text: Substring, _ pattern: Substring) -> Bool {
            guard let star = pattern.firstIndex(of: "*") else { return text.hasPrefix(pattern) }
            let literal = pattern[..<star]
            guard text.hasPrefix(literal) else { return false }
            var rest = text.dropFirst(literal.count)
            let after = pattern[pattern.index(after: star)...]
            while true {
                if match(rest, after) { return true }
                guard let first = rest.first, first != "/" else { return false }
                rest = rest.dropFirst()
            }
        }
        return match(Substring(text), Substring(pattern))
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

    /// Why connecting to `address` on `port` (for `host`) is refused, or `nil`. The reason names the host,
    /// the address and its kind, for the operator's log only: ``clientMessage(forLoaderReason:)``
    /// gives what a client may see.
    public func refusal(for address: IPAddress, host: String, port: Int) -> String? {
        guard !allowsPrivateNetworks, !allowedAddresses.contains(address),
            !allowedEndpoints.contains(Endpoint(address, port: port)), let kind = address.nonPublicKind,
            !address.isNonPublicOnly(in: allowedNetworkKinds)
        else { return nil }
        return Refusal.nonPublicAddress.reason(
            detail:
                "\(host) resolves to \(address): \(kind), not the public internet (IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES, _PRIVATE_ or _LINK_LOCAL_ open its kind; --allow-private-networks every kind)")
    }

    /// The kinds of non-public network the three switches open.
    package var allowedNetworkKinds: Set<IPAddress.NetworkKind> {
        var kinds: Set<IPAddress.NetworkKind> = []
        if allowsLoopbackAddresses { kinds.insert(.loopback) }
        if allowsPrivateAddresses { kinds.insert(.privateUse) }
        if allowsLinkLocalAddresses { kinds.insert(.linkLocal) }
        return kinds
    }

    /// What a client may be told about a loader error's reason (the `reason` of
    /// ``ImagePipeline/Error/connectionFailed(_:reason:)`` from ``GuardedDataLoader``, or a reason
    /// from this policy's `refusal(for:)` checks): for a refusal, a fixed sentence
    /// that starts with ``refusalMarker`` and says which rule refused (scheme, missing host,
    /// allow-list, non-public address) but never a host name, an address or its kind, since after
    /// a redirect or a DNS lookup those describe the operator's network; `nil` when the reason is
    /// not a refusal. Log the whole reason; answer with this.
    public static func clientMessage(forLoaderReason reason: String) -> String? {
        guard reason.hasPrefix(refusalMarker) else { return nil }
        return Refusal.allCases.first { reason == $0.clientMessage || reason.hasPrefix($0.clientMessage + "; ") }?.clientMessage
            ?? refusalMarker
    }

    /// The rule behind a refusal. A refusal's reason is its ``clientMessage``, then `; ` and the
    /// detail for the log, so the client's part is found by its fixed start, never by parsing the
    /// detail.
    enum Refusal: CaseIterable {
        case scheme, missingHost, hostNotAllowed, nonPublicAddress, sourceNotAllowed, outsideRoot

        /// The sentence a client may see.
        var clientMessage: String {
            switch self {
            case .scheme: "\(SourcePolicy.refusalMarker): only http and https sources are fetched"
            case .missingHost: "\(SourcePolicy.refusalMarker): the source has no host"
            case .hostNotAllowed: "\(SourcePolicy.refusalMarker): the source's host is not on the allow-list"
            case .nonPublicAddress: "\(SourcePolicy.refusalMarker): the source's address is not on the public internet"
            case .sourceNotAllowed: "\(SourcePolicy.refusalMarker): the source matches none of the allowed sources"
            case .outsideRoot: "\(SourcePolicy.refusalMarker): the local path is not a file under the local filesystem root"
            }
        }

        /// The whole reason: the client's sentence, then the detail.
        func reason(detail: String?) -> String {
            detail.map { "\(clientMessage); \($0)" } ?? clientMessage
        }
    }
}
#endif
