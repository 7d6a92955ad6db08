#if os(Linux)
import Dispatch
import Foundation
import Imago
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoServer

/// Name resolution under a deadline: ``SystemResolver`` with a blocking lookup that hangs (the
/// real thread machinery around a stand-in for getaddrinfo, which cannot be made to hang on
/// demand), and the guarded loader, which stops waiting at its connect timeout or when cancelled.
@Suite struct HostResolutionTests {
    /// A lookup that blocks its thread until the test lets it go, like getaddrinfo waiting for a
    /// DNS server that does not answer; after 60 s it returns by itself, so that a loader that
    /// waited for it would fail the tests' bounds clearly rather than hang the run.
    final class HangingLookup: Sendable {
        private let gate = DispatchSemaphore(value: 0)
        /// A count needs no lock.
        private let started = Atomic(0)

        /// Lookups that have begun.
        var startedCount: Int { started.load(ordering: .sequentiallyConsistent) }

        func lookup(_ host: String) -> [IPAddress] {
            started.add(1, ordering: .sequentiallyConsistent)
            _ = gate.wait(timeout: .now() + .seconds(60))
            return [.v4(127, 0, 0, 1)]
        }

        /// Lets `count` blocked (or future) lookups return.
        func release(_ count: Int) {
            for _ in 0..<count { gate.signal() }
        }
    }

    @Test func systemResolverResolvesLocalhostAndLiterals() async throws {
        let resolver = SystemResolver()
        let localhost = try await resolver.resolve(host: "localhost")
        #expect(localhost.contains(.v4(127, 0, 0, 1)) || localhost.contains(.v6([UInt8](repeating: 0, count: 15) + [1])))
        #expect(try await resolver.resolve(host: "203.0.113.9") == [.v4(203, 0, 113, 9)])
        #expect(resolver.outstandingLookups == 0)
    }

    /// A cancelled caller stops waiting at once though its lookup still blocks; blocked lookups
    /// count against the limit until they return, and beyond it a lookup fails at once.
    @Test func boundsTheLookupsLeftBlocking() async throws {
        let hanging = HangingLookup()
        defer { hanging.release(10) }
        let resolver = SystemResolver(maximumOutstandingLookups: 2, lookup: hanging.lookup)
        let waiters = (0..<2).map { index in
            Task { try await resolver.resolve(host: "hang\(index).test") }
        }
        #expect(await eventually(within: .seconds(10)) { hanging.startedCount == 2 })
        for waiter in waiters { waiter.cancel() }
        for waiter in waiters {
            await #expect(throws: CancellationError.self) { try await waiter.value }
        }
        #expect(resolver.outstandingLookups == 2, "the threads are still blocked")
        do {
            _ = try await resolver.resolve(host: "third.test")
            Issue.record("a third lookup must be refused while two block")
        } catch let error as ResolutionError {
            #expect(error.host == "third.test")
            #expect(error.description.contains("2 DNS lookups are already waiting"), "\(error)")
        }
        #expect(hanging.startedCount == 2, "the refused lookup took no thread")
        hanging.release(2)
        #expect(await eventually(within: .seconds(10)) { resolver.outstandingLookups == 0 })
        hanging.release(1)
        #expect(try await resolver.resolve(host: "fourth.test") == [.v4(127, 0, 0, 1)])
    }

    /// A download whose host name does not resolve (for 60 s) fails at the connect timeout (1 s
    /// here), well before the download timeout (30 s), with a reason that says the DNS lookup
    /// timed out. The bound allows 9 s for a busy machine (a sanitizer, parallel suites).
    @Test func theLoaderStopsWaitingForDNSAtTheConnectTimeout() async throws {
        let hanging = HangingLookup()
        defer { hanging.release(10) }
        let resolver = SystemResolver(maximumOutstandingLookups: 4, lookup: hanging.lookup)
        let connectTimeout = Duration.seconds(1)
        let loader = try GuardedDataLoaderTests.makeLoader(
            resolver: resolver, configuration: DataLoader.Configuration(connectTimeout: connectTimeout, downloadTimeout: .seconds(30)))
        let url = try #require(URL(string: "https://hang.origin.test/image"))
        let start = ContinuousClock.now
        do {
            _ = try await loader.loadData(for: DataLoader.Request(url: url), progress: { _ in })
            Issue.record("the download must fail")
        } catch {
            let elapsed = ContinuousClock.now - start
            print("DNS deadline: connect timeout \(connectTimeout), failed after \(elapsed)")
            #expect(error == .connectionFailed(url, reason: GuardedDataLoader.dnsTimeoutReason(host: "hang.origin.test", after: connectTimeout)))
            #expect(error.description.contains("DNS lookup of hang.origin.test timed out after 1 s"), "\(error)")
            #expect(elapsed >= connectTimeout - .milliseconds(50), "it waited for the deadline: \(elapsed)")
            #expect(elapsed < connectTimeout + .seconds(9), "answered within the timeout plus 9 s slack: \(elapsed)")
        }
        #expect(resolver.outstandingLookups == 1, "the lookup still blocks, left behind")
        hanging.release(1)
        #expect(await eventually(within: .seconds(10)) { resolver.outstandingLookups == 0 })
        try await loader.shutdown()
    }

    /// Cancelling a download while its host name resolves ends it at once.
    @Test func cancellingADownloadStopsTheDNSWait() async throws {
        let hanging = HangingLookup()
        defer { hanging.release(10) }
        let resolver = SystemResolver(maximumOutstandingLookups: 4, lookup: hanging.lookup)
        let loader = try GuardedDataLoaderTests.makeLoader(
            resolver: resolver, configuration: DataLoader.Configuration(connectTimeout: .seconds(30), downloadTimeout: .seconds(60)))
        let url = try #require(URL(string: "https://hang.origin.test/image"))
        let download = Task { try await loader.loadData(for: DataLoader.Request(url: url), progress: { _ in }) }
        #expect(await eventually(within: .seconds(10)) { hanging.startedCount == 1 })
        let start = ContinuousClock.now
        download.cancel()
        let result = await download.result
        let elapsed = ContinuousClock.now - start
        #expect(throws: ImagePipeline.Error.cancelled(url)) { try result.get() }
        #expect(elapsed < .seconds(10), "answered within 10 s of the cancellation, not at the 30 s timeout: \(elapsed)")
        try await loader.shutdown()
    }
}
#endif
