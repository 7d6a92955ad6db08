#if os(Linux) || os(macOS)
import AsyncHTTPClient
import Foundation
import Imago
import NIOCore
import NIOPosix
import Synchronization

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
/// A refusal fails as ``ImagePipeline/Error/connectionFailed(_:reason:)`` whose reason starts
/// with ``SourcePolicy/refusalMarker``.
public final class GuardedDataLoader: DataLoading {
    public let configuration: DataLoaderConfiguration
    public let policy: SourcePolicy
    private let resolver: any HostResolving
    private let plainClient: HTTPClient
    /// https clients by `host|address`, at most ``maximumTLSClients``.
    private let tlsClients = Mutex<[String: HTTPClient]>([:])
    private let isShutDown = Atomic(false)

    /// The most https clients kept (one per host and address); beyond, a client serves one request.
    static let maximumTLSClients = 64

    public init(
        policy: SourcePolicy, resolver: any HostResolving = SystemResolver(),
        configuration: DataLoaderConfiguration = DataLoaderConfiguration()
    ) {
        self.policy = policy
        self.resolver = resolver
        self.configuration = configuration
        self.plainClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: Self.clientConfiguration(configuration))
    }

    deinit {
        if !isShutDown.exchange(true, ordering: .relaxed) {
            plainClient.shutdown { _ in }
            for client in tlsClients.withLock({ Array($0.values) }) { client.shutdown { _ in } }
        }
    }

    /// Closes every connection; the loader cannot be used afterwards.
    public func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .relaxed) else { return }
        try await plainClient.shutdown()
        for client in tlsClients.withLock({ clients in defer { clients = [:] }; return Array(clients.values) }) {
            try await client.shutdown()
        }
    }

    private static func clientConfiguration(_ configuration: DataLoaderConfiguration, override: [String: String] = [:]) -> HTTPClient.Configuration {
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, configuration.maximumConnections)
        pool.retryConnectionEstablishment = false
        var result = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: TimeAmount(configuration.connectTimeout)),
            connectionPool: pool, decompression: .disabled)
        result.dnsOverride = override
        return result
    }

    public func loadData(
        for request: DataRequest, progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws(ImagePipeline.Error) -> DataResponse {
        guard !isShutDown.load(ordering: .relaxed) else {
            throw .connectionFailed(request.url, reason: DownloadValidator.shutDownReason)
        }
        return try await HTTPClientTransfer.run(request, configuration: configuration, progress: progress) {
            [self] url, headers throws(ImagePipeline.Error) in
            let (client, target, hostHeader, isEphemeral) = try await connection(for: url)
            var hop = HTTPClientTransfer.Hop(
                client: client, request: HTTPClientTransfer.getRequest(target, headers: headers.filter { $0.key.lowercased() != "host" }),
                isOwned: isEphemeral)
            if let hostHeader { hop.request.headers.replaceOrAdd(name: "Host", value: hostHeader) }
            return hop
        }
    }

    /// Checks `url` and its host's addresses, and picks the client and target URL that connect to
    /// the first address.
    private func connection(for url: URL) async throws(ImagePipeline.Error) -> (HTTPClient, String, String?, Bool) {
        if let reason = policy.refusal(for: url) { throw .connectionFailed(url, reason: reason) }
        guard let host = url.host, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .connectionFailed(url, reason: "\(SourcePolicy.refusalMarker): the source has no host")
        }
        let addresses: [IPAddress]
        do {
            addresses = try await resolver.resolve(host: host)
        } catch {
            throw .connectionFailed(url, reason: "the host name could not be resolved (\(error))")
        }
        guard let address = addresses.first else {
            throw .connectionFailed(url, reason: "the host name \(host) has no address")
        }
        // Every address is checked, not only the first: a name that mixes public and private
        // addresses is refused as a whole.
        for candidate in addresses {
            if let reason = policy.refusal(for: candidate, host: host) { throw .connectionFailed(url, reason: reason) }
        }
        if url.scheme?.lowercased() == "http" {
            let hostHeader = url.port.map { "\(Self.hostForHeader(host)):\($0)" } ?? Self.hostForHeader(host)
            components.host = nil
            components.percentEncodedHost = address.urlHost
            guard let target = components.url?.absoluteString else {
                throw .connectionFailed(url, reason: "cannot address \(address)")
            }
            return (plainClient, target, hostHeader, false)
        }
        let key = "\(host)|\(address)"
        let (client, isEphemeral) = tlsClients.withLock { clients -> (HTTPClient, Bool) in
            if let client = clients[key] { return (client, false) }
            let client = HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                configuration: Self.clientConfiguration(configuration, override: [host: address.description]))
            guard clients.count < Self.maximumTLSClients else { return (client, true) }
            clients[key] = client
            return (client, false)
        }
        return (client, url.absoluteString, nil, isEphemeral)
    }

    private static func hostForHeader(_ host: String) -> String {
        if case .v6? = IPAddress(host), !host.hasPrefix("[") { return "[\(host)]" }
        return host
    }
}
#endif
