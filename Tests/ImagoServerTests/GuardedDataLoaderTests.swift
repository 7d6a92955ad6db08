#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import NIOSSL
import Testing

@testable import ImagoServer

/// The guarded loader against a real https origin on 127.0.0.1 (``TLSOrigin``), reached through
/// made-up host names that a ``StaticResolver`` maps to it: clients kept and shut down, the
/// certificate checked against the host name, refusals after a redirect, and name resolution
/// under the connect timeout.
@Suite struct GuardedDataLoaderTests {
    static let loopback = IPAddress.v4(127, 0, 0, 1)
    /// More names than ``keptClients``, so clients are evicted all along.
    static let hosts = (0..<6).map { "h\($0).origin.test" }
    static let keptClients = 2

    /// A loader that trusts the test certificate authority, fetches from 127.0.0.1 and keeps
    /// `keptClients` clients. Its timeouts are a generous bound, not a speed check: under the
    /// thread sanitizer, beside the rest of the suite on two cores, fifty redirected downloads
    /// with a TLS handshake at almost every hop took one download past 20 s.
    static func makeLoader(
        resolver: any HostResolving, keptClients: Int = keptClients,
        configuration: DataLoader.Configuration = DataLoader.Configuration(connectTimeout: .seconds(20), downloadTimeout: .seconds(60))
    ) throws -> GuardedDataLoader {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(TestCertificates.authority.utf8), format: .pem)])
        return GuardedDataLoader(
            policy: SourcePolicy(allowedAddresses: [loopback]), resolver: resolver, configuration: configuration,
            keptClients: keptClients, tlsConfiguration: tls)
    }

    /// Every name of ``hosts`` (and `origin.test`) at 127.0.0.1, nothing else.
    static let resolver = StaticResolver(
        Dictionary(uniqueKeysWithValues: (hosts + ["origin.test"]).map { ($0, [loopback]) }), fallback: nil)

    /// `count` downloads, `concurrency` at a time, each redirected from one made-up host to
    /// another; checks every body.
    static func redirectedDownloads(
        _ count: Int, concurrency: Int, through loader: GuardedDataLoader, from origin: TLSOrigin
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    for index in stride(from: worker, to: count, by: concurrency) {
                        let from = hosts[index % hosts.count]
                        let to = hosts[(index * 5 + 1) % hosts.count]
                        let url = origin.url(host: from, path: "/hop/\(to)")
                        let response = try await loader.loadData(for: DataLoader.Request(url: url), progress: { _ in })
                        #expect(response.data == Data(origin.body), "\(url)")
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// 50 redirected https downloads over six host names with two clients kept: every body
    /// arrives, evicted clients are shut down as their last download ends (so at most the kept
    /// clients' connections stay open), and shutting the loader down closes every connection.
    /// (``GuardedDataLoaderDescriptorTests`` counts the process's descriptors around the same run.)
    @Test func keepsFewClientsAndShutsEveryOneDown() async throws {
        let origin = try await TLSOrigin.start(body: Array(repeating: 0xAB, count: 4096))
        let loader = try Self.makeLoader(resolver: Self.resolver)
        try await Self.redirectedDownloads(50, concurrency: 5, through: loader, from: origin)
        #expect(origin.requests == 100)
        let counts = loader.clientCounts
        #expect(counts.kept <= Self.keptClients)
        #expect(counts.live == counts.kept, "evicted clients are shut down once their downloads end")
        #expect(counts.leases == 0)
        // Idle keep-alive connections: only the kept clients' (each to one host at one address),
        // at most maximumConnections each; without eviction every host pair would keep its own.
        let idleBound = Self.keptClients * loader.configuration.maximumConnections
        #expect(await eventually(within: .seconds(5)) { origin.openConnections <= idleBound }, "\(origin.openConnections) open")
        #expect(origin.acceptedConnections > idleBound, "the run must have opened more connections than stay open")
        try await loader.shutdown()
        #expect(await origin.waitUntilNoConnectionIsOpen(), "\(origin.openConnections) still open after shutdown")
        #expect(loader.clientCounts.live == 0)
        // A shut-down loader refuses at once, without resolving or connecting.
        await #expect(throws: ImagePipeline.Error.self) {
            try await loader.loadData(for: DataLoader.Request(url: origin.url(host: "h0.origin.test", path: "/image")), progress: { _ in })
        }
        #expect(origin.openConnections == 0)
        await origin.stop()
    }

    /// The client connects to the checked address but verifies the certificate against the host
    /// name: a name the certificate does not cover fails, though it maps to the same origin.
    @Test func verifiesTheCertificateAgainstTheHostName() async throws {
        let origin = try await TLSOrigin.start(body: [1, 2, 3])
        let resolver = StaticResolver(["origin.test": [Self.loopback], "elsewhere.test": [Self.loopback]], fallback: nil)
        let loader = try Self.makeLoader(resolver: resolver)
        let good = try await loader.loadData(for: DataLoader.Request(url: origin.url(host: "origin.test", path: "/image")), progress: { _ in })
        #expect(good.data == Data([1, 2, 3]))
        // The override is found whatever the case of the name (a missed one would resolve
        // ORIGIN.Test through the system, which does not know it, and fail).
        let shouting = try await loader.loadData(for: DataLoader.Request(url: origin.url(host: "ORIGIN.Test", path: "/image")), progress: { _ in })
        #expect(shouting.data == Data([1, 2, 3]))
        do {
            _ = try await loader.loadData(for: DataLoader.Request(url: origin.url(host: "elsewhere.test", path: "/image")), progress: { _ in })
            Issue.record("a certificate for origin.test must not serve elsewhere.test")
        } catch {
            guard case .connectionFailed(_, let reason) = error else {
                Issue.record("expected a failed connection, got \(error)")
                return
            }
            #expect(SourcePolicy.clientMessage(forLoaderReason: reason) == nil, "a TLS failure is no refusal: \(reason)")
        }
        #expect(origin.requests == 2)
        try await loader.shutdown()
        #expect(await origin.waitUntilNoConnectionIsOpen())
        await origin.stop()
    }

    /// A redirect to a name that resolves to a private address is refused; the error names the
    /// URL that was asked for (not the redirect's target), its reason carries the detail for the
    /// log, and the client's message names neither the host nor the address.
    @Test func refusesAPrivateRedirectTargetWithoutNamingIt() async throws {
        let origin = try await TLSOrigin.start(body: [1])
        let resolver = StaticResolver(["origin.test": [Self.loopback], "internal.origin.test": [.v4(10, 1, 2, 3)]], fallback: nil)
        let loader = try Self.makeLoader(resolver: resolver)
        let requested = origin.url(host: "origin.test", path: "/hop/internal.origin.test")
        do {
            _ = try await loader.loadData(for: DataLoader.Request(url: requested), progress: { _ in })
            Issue.record("the redirect to 10.1.2.3 must be refused")
        } catch {
            guard case .connectionFailed(let url, let reason) = error else {
                Issue.record("expected a refusal, got \(error)")
                return
            }
            #expect(url == requested)
            #expect(reason.hasPrefix(SourcePolicy.refusalMarker))
            #expect(reason.contains("internal.origin.test") && reason.contains("10.1.2.3"), "the log's detail: \(reason)")
            let message = try #require(SourcePolicy.clientMessage(forLoaderReason: reason))
            #expect(message == "refused by the source policy: the source's address is not on the public internet")
        }
        #expect(loader.clientCounts.leases == 0)
        try await loader.shutdown()
        #expect(await origin.waitUntilNoConnectionIsOpen())
        await origin.stop()
    }
}
#endif
