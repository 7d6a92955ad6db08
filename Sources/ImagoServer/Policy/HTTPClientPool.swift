#if os(Linux)
import AsyncHTTPClient
import Imago
import NIOCore
import NIOPosix
import NIOSSL

/// The AsyncHTTPClient clients behind ``GuardedDataLoader``, one per checked address, at most
/// ``capacity`` kept for reuse, every one shut down exactly once (``ClientLeases`` holds the rules).
///
/// Why a client per address: the loader connects to the address it checked, and AsyncHTTPClient
/// sets that only per client. An https request goes to its host name (TLS sends it as SNI and
/// verifies the certificate against it) through a client whose `dnsOverride` maps the host to
/// the address, so that client serves only `host` at `address`; an http request goes to the
/// address literal, so its client serves every host at that address. (AsyncHTTPClient 1.x has no
/// per-request override, no resolver hook, and verifies a certificate against the URL's host or
/// the override's SNI only.)
///
/// Each kept client holds at most ``DataLoader/Configuration/maximumConnections`` idle connections
/// (for AsyncHTTPClient's idle timeout, 60 s), so idle connections never exceed ``capacity``
/// times that. A download leases the clients of its hops and releases them when it ends; an
/// evicted client's shutdown starts when it is evicted idle or when its last lease ends, and runs
/// on by itself: the download does not wait for it, since closing a TLS connection politely can
/// take up to the TLS shutdown timeout (5 s) with a peer that does not answer. ``shutdown()``
/// waits for the clients it shuts down.
final class HTTPClientPool: Sendable {
    /// A download's claim on a client.
    typealias Lease = ClientLeases<HTTPClient>.Lease

    private let configuration: DataLoader.Configuration
    private let tlsConfiguration: TLSConfiguration?
    private let leases: Locked<ClientLeases<HTTPClient>>

    /// The most clients kept for reuse.
    var capacity: Int { leases.withLock { $0.capacity } }

    /// A pool that keeps `capacity` clients, connecting with `configuration`'s limits and, for
    /// https, `tlsConfiguration` (`nil`: the system's trust roots).
    init(capacity: Int, configuration: DataLoader.Configuration, tlsConfiguration: TLSConfiguration?) {
        self.configuration = configuration
        self.tlsConfiguration = tlsConfiguration
        self.leases = Locked(ClientLeases(capacity: capacity))
    }

    deinit {
        // Reached only when ``shutdown()`` was never called: shut the clients down without waiting,
        // so none is released running.
        Self.startShutdown(leases.withLock { $0.close() })
    }

    /// Whether ``shutdown()`` has been called.
    var isShutDown: Bool { leases.withLock { $0.isClosed } }

    /// Counts for tests: clients kept, clients existing (kept and retired in use), open leases.
    var counts: (kept: Int, live: Int, leases: Int) {
        leases.withLock { ($0.keptCount, $0.liveCount, $0.leaseCount) }
    }

    /// A lease on a client for one of `addresses` (all checked, in the resolver's order) and, for
    /// https, `host`: the first address that has a kept client, so a name whose addresses rotate
    /// keeps its connections, else the first address. `nil` after ``shutdown()``. Starts the
    /// shutdown of the idle clients it evicts.
    func lease(https: Bool, host: String, addresses: [IPAddress]) -> (lease: Lease, client: HTTPClient, address: IPAddress)? {
        // The host exactly as the request URL has it: AsyncHTTPClient looks its override up by the
        // URL's host as written (case and all), and must never miss it and resolve by itself.
        let candidates = addresses.map { (address: $0, key: https ? "https|\(host)|\($0)" : "http|\($0)") }
        guard let first = candidates.first else { return nil }
        let leased = leases.withLock { leases in
            let chosen = leases.keptKey(among: candidates.map(\.key)).flatMap { key in candidates.first { $0.key == key } } ?? first
            return leases.lease(key: chosen.key) {
                HTTPClient(
                    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                    configuration: clientConfiguration(override: https ? [host: chosen.address.description] : [:]))
            }.map { (lease: $0.lease, client: $0.client, evicted: $0.evicted, address: chosen.address) }
        }
        guard let leased else { return nil }
        Self.startShutdown(leased.evicted)
        return (leased.lease, leased.client, leased.address)
    }

    /// Ends `leases`, starting the shutdown of the evicted clients whose last lease they were.
    func release(_ leases: [Lease]) {
        Self.startShutdown(self.leases.withLock { state in leases.compactMap { state.release($0) } })
    }

    /// Shuts every client down, in use or not (their downloads fail), and waits until they are;
    /// nothing is leased afterwards.
    func shutdown() async {
        for client in leases.withLock({ $0.close() }) {
            // Each client is handed out once, so this cannot be a second shutdown; any other error
            // leaves nothing to retry.
            try? await client.shutdown()
        }
    }

    /// Shuts `clients` down without waiting (each is handed out once, so exactly once).
    private static func startShutdown(_ clients: [HTTPClient]) {
        for client in clients { client.shutdown { _ in } }
    }

    private func clientConfiguration(override: [String: String]) -> HTTPClient.Configuration {
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, configuration.maximumConnections)
        pool.retryConnectionEstablishment = false
        var result = HTTPClient.Configuration(
            tlsConfiguration: tlsConfiguration, redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(configuration.connectTimeout)), connectionPool: pool,
            decompression: .disabled)
        result.dnsOverride = override
        return result
    }
}
#endif
