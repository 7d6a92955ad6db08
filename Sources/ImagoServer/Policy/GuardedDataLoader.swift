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
            throw .connectionFailed(request.url, reason: "the data loader has been shut down")
        }
        let watchdog = DownloadWatchdog(url: request.url, configuration: configuration)
        let deadline = NIODeadline.now() + TimeAmount(configuration.downloadTimeout)
        let headers = DownloadValidator.headers(for: request, configuration: configuration)
        return try await watchdog.run { [self] in
            var validator = DownloadValidator(request: request, configuration: configuration)
            var redirects = RedirectPolicy(request: request, headers: headers)
            var url = request.url
            var response: HTTPClientResponse
            var ephemeral: HTTPClient?
            defer { if let ephemeral { ephemeral.shutdown { _ in } } }
            hops: while true {
                let (client, target, hostHeader, isEphemeral) = try await connection(for: url)
                if isEphemeral { ephemeral = client }
                var httpRequest = HTTPClientRequest(url: target)
                httpRequest.method = .GET
                for (name, value) in redirects.headers where name.lowercased() != "host" {
                    httpRequest.headers.add(name: name, value: value)
                }
                if let hostHeader { httpRequest.headers.replaceOrAdd(name: "Host", value: hostHeader) }
                do {
                    response = try await client.execute(httpRequest, deadline: deadline)
                } catch {
                    throw HTTPClientDataLoader.error(for: error, url: request.url, configuration: configuration, validator: validator)
                }
                watchdog.noteActivity()
                switch redirects.decide(status: Int(response.status.code), location: response.headers.first(name: "location")) {
                case .deliver: break hops
                case .follow(let next, _): url = next
                case .fail(let error): throw error
                }
            }
            try validator.receive(statusCode: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) })
            do {
                for try await chunk in response.body {
                    watchdog.noteActivity()
                    try validator.receive(chunk.readableBytesView)
                    progress(validator.progress)
                }
            } catch let error as ImagePipeline.Error {
                throw error
            } catch {
                throw HTTPClientDataLoader.error(for: error, url: request.url, configuration: configuration, validator: validator)
            }
            try Task.checkCancellation()
            return try validator.finish()
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
