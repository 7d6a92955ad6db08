#if os(Linux)
import AsyncHTTPClient
import Foundation
import Imago
import NIOCore
import NIOSSL

/// The proxy's ``DataLoading``: an AsyncHTTPClient loader that resolves each host itself, checks
/// every address against the ``SourcePolicy``, and connects to the address it checked, at every
/// redirect hop.
///
/// How the checked address is the connected one (so DNS rebinding cannot slip a private address
/// in between the check and the connect): for http, the request goes to the address literal
/// (`http://203.0.113.7:80/…`) with the original `Host` header; for https, through a client whose
/// `dnsOverride` maps the host to that address, so TLS still sends the host name (SNI) and
/// verifies the certificate against it. Redirects are followed here under Imago's
/// `RedirectPolicy` (at most 10 hops, never https to http), each hop checked again.
///
/// Every address of the name is checked; the connection goes to one of them, preferring one that
/// already has a client (DNS answers that rotate then keep their connections).
///
/// Resources: the clients live in a pool (`HTTPClientPool`) that keeps at most
/// ``maximumKeptClients`` (so idle connections stay bounded) and shuts every client down exactly
/// once, on every path: a finished, failed or cancelled download, an eviction, ``shutdown()``, or
/// the loader's release. Name resolution, at every hop, is waited for at most the connect timeout
/// and at most what is left of the download timeout counted from the download's start (and no
/// longer than the caller wants), however long the resolver takes: a redirect hop's lookup cannot
/// outlive the download's deadline. A lookup that outlives the connect timeout fails the download
/// with a reason that says the DNS lookup timed out; one cut by the deadline, as a download timeout.
///
/// Errors name the URL that was asked for, never a redirect's target. A refusal fails as
/// ``ImagePipeline/Error/connectionFailed(_:reason:)`` whose reason starts with
/// ``SourcePolicy/refusalMarker``; that reason names hosts and addresses for the operator's log,
/// and ``SourcePolicy/clientMessage(forLoaderReason:)`` gives the part a client may see.
public final class GuardedDataLoader: DataLoading {
    public let configuration: DataLoader.Configuration
    public let policy: SourcePolicy
    private let resolver: any HostResolving
    private let clients: HTTPClientPool

    /// The most clients kept for reuse, one per checked host and address (https) or address
    /// (http); each keeps at most `configuration.maximumConnections` idle connections.
    public static let maximumKeptClients = 32

    /// A loader that fetches what `policy` allows, resolving names with `resolver`, under
    /// `configuration`'s limits.
    public convenience init(
        policy: SourcePolicy, resolver: any HostResolving = SystemResolver(),
        configuration: DataLoader.Configuration = DataLoader.Configuration()
    ) {
        self.init(
            policy: policy, resolver: resolver, configuration: configuration, keptClients: Self.maximumKeptClients,
            tlsConfiguration: nil)
    }

    /// A loader that keeps `keptClients` clients and trusts what `tlsConfiguration` trusts
    /// (`nil`: the system's roots); tests pass a small pool and their own certificate authority.
    package init(
        policy: SourcePolicy, resolver: any HostResolving, configuration: DataLoader.Configuration,
        keptClients: Int, tlsConfiguration: TLSConfiguration?
    ) {
        self.policy = policy
        self.resolver = resolver
        self.configuration = configuration
        self.clients = HTTPClientPool(capacity: keptClients, configuration: configuration, tlsConfiguration: tlsConfiguration)
    }

    /// Closes every connection and waits until the clients are shut down; downloads still running
    /// fail, and the loader cannot be used afterwards. Without it, releasing the loader shuts the
    /// clients down without waiting. (Clients evicted earlier were shut down when they left.)
    public func shutdown() async throws {
        await clients.shutdown()
    }

    /// Clients kept, clients existing (kept, and evicted ones still in use) and leases held: for tests.
    var clientCounts: (kept: Int, live: Int, leases: Int) { clients.counts }

    public func loadData(
        for request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        try await load(request, trusting: nil, progress: progress)
    }

    /// Loads `request` from an origin the operator configured (``S3DataLoader``'s endpoint): the
    /// source policy's rules (allow-lists, non-public addresses) are not applied to the hops that
    /// go to `request.url`'s own scheme, host and port; a redirect elsewhere is checked as usual.
    /// The same clients, timeouts and size limits as every other download.
    package func loadData(
        fromTrustedOrigin request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        try await load(request, trusting: Origin(request.url), progress: progress)
    }

    /// A URL's scheme, host and port, as a redirect hop is compared with a trusted origin.
    private struct Origin: Hashable {
        var scheme: String
        var host: String
        var port: Int

        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = url.port ?? (scheme == "https" ? 443 : 80)
        }
    }

    private func load(
        _ request: DataLoader.Request, trusting trusted: Origin?, progress: @escaping @Sendable (ImageTask.Progress) -> Void
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        guard !clients.isShutDown else {
            throw .connectionFailed(request.url, reason: DownloadValidator.shutDownReason)
        }
        // The clients this download's hops lease, released when it ends, however it ends.
        let leases = Locked<[HTTPClientPool.Lease]>([])
        defer { clients.release(leases.withLock { $0 }) }
        // Every hop's lookup ends by the download's own deadline (the download timeout from now).
        let deadline = ContinuousClock.now + configuration.downloadTimeout
        return try await HTTPClientTransfer.run(request, configuration: configuration, progress: progress) {
            [self] url, headers throws(ImagePipeline.Error) in
            let connection = try await connection(
                for: url, of: request.url, deadline: deadline, trusted: trusted != nil && Origin(url) == trusted)
            leases.withLock { $0.append(connection.lease) }
            var hop = HTTPClientTransfer.Hop(
                client: connection.client,
                url: connection.target, headers: headers.filter { $0.key.lowercased() != "host" })
            if let hostHeader = connection.hostHeader { hop.headers.replaceOrAdd(name: "Host", value: hostHeader) }
            return hop
        }
    }

    /// How one hop connects: the leased client, the URL to request and the `Host` header to send.
    private struct Connection {
        var lease: HTTPClientPool.Lease
        var client: HTTPClient
        var target: String
        var hostHeader: String?
    }

    /// Checks `url` (a hop of the download of `requested`) and every address of its host, and
    /// leases a client that connects to one of them (``HTTPClientPool`` picks which).
    /// A `trusted` hop (the operator's own origin) skips the policy's checks.
    private func connection(
        for url: URL, of requested: URL, deadline: ContinuousClock.Instant, trusted: Bool
    ) async throws(ImagePipeline.Error) -> Connection {
        if !trusted, let reason = policy.refusal(for: url) { throw .connectionFailed(requested, reason: reason) }
        guard let host = url.host, !host.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .connectionFailed(requested, reason: SourcePolicy.Refusal.missingHost.reason(detail: nil))
        }
        let addresses = try await addresses(of: host, for: requested, deadline: deadline)
        guard !addresses.isEmpty else {
            throw .connectionFailed(requested, reason: "the host name \(host) has no address")
        }
        // Every address is checked, not only the one connected to: a name that mixes public and
        // private addresses is refused as a whole.
        let https = url.scheme?.lowercased() == "https"
        let port = url.port ?? (https ? 443 : 80)
        for candidate in addresses where !trusted {
            if let reason = policy.refusal(for: candidate, host: host, port: port) {
                throw .connectionFailed(requested, reason: reason)
            }
        }
        guard let (lease, client, address) = clients.lease(https: https, host: host, addresses: addresses) else {
            throw .connectionFailed(requested, reason: DownloadValidator.shutDownReason)
        }
        if https {
            return Connection(lease: lease, client: client, target: url.absoluteString, hostHeader: nil)
        }
        components.host = nil
        components.percentEncodedHost = address.urlHost
        guard let target = components.url?.absoluteString else {
            clients.release([lease])
            throw .connectionFailed(requested, reason: "cannot address \(address)")
        }
        let hostHeader = url.port.map { "\(Self.hostForHeader(host)):\($0)" } ?? Self.hostForHeader(host)
        return Connection(lease: lease, client: client, target: target, hostHeader: hostHeader)
    }

    /// `host`'s addresses, waited for at most the connect timeout, never past `deadline` (the
    /// download's), and no longer than the caller wants.
    private func addresses(
        of host: String, for requested: URL, deadline: ContinuousClock.Instant
    ) async throws(ImagePipeline.Error) -> [IPAddress] {
        let left = Self.lookupLimit(connectTimeout: configuration.connectTimeout, until: deadline, now: .now)
        let downloadTimedOut = ImagePipeline.Error.timedOut(requested, .download, after: configuration.downloadTimeout)
        guard left.limit > .zero else { throw downloadTimedOut }
        switch await BoundedWait.run(within: left.limit, { [resolver] in try await resolver.resolve(host: host) }) {
        case .value(let addresses):
            return addresses
        case .failed(let error):
            throw .connectionFailed(requested, reason: "the host name could not be resolved (\(error))")
        case .timedOut:
            if left.endsAtDeadline { throw downloadTimedOut }
            throw .connectionFailed(requested, reason: Self.dnsTimeoutReason(host: host, after: left.limit))
        case .cancelled:
            throw .cancelled(requested)
        }
    }

    /// How long one hop's lookup may be waited for: the connect timeout, or what is left until the
    /// download's `deadline` when that is shorter (`endsAtDeadline`; zero when it has passed).
    static func lookupLimit(
        connectTimeout: Duration, until deadline: ContinuousClock.Instant, now: ContinuousClock.Instant
    ) -> (limit: Duration, endsAtDeadline: Bool) {
        let left = max(.zero, deadline - now)
        return left < connectTimeout ? (left, true) : (connectTimeout, false)
    }

    /// The reason of a lookup that did not answer in time.
    static func dnsTimeoutReason(host: String, after limit: Duration) -> String {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return "the DNS lookup of \(host) timed out after \(seconds.formatted(.number.precision(.fractionLength(0...3)))) s"
    }

    private static func hostForHeader(_ host: String) -> String {
        if case .v6? = IPAddress(host), !host.hasPrefix("[") { return "[\(host)]" }
        return host
    }
}
#endif
