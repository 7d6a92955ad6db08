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

    /// One name whose DNS server hangs takes at most the limit per host: the same name is then
    /// refused at once, saying why, while other names still get a thread.
    @Test func oneHangingHostCannotHoldEveryLookup() async throws {
        let hanging = HangingLookup()
        defer { hanging.release(10) }
        let resolver = SystemResolver(maximumOutstandingLookups: 4, maximumOutstandingLookupsPerHost: 2, lookup: hanging.lookup)
        #expect(resolver.maximumOutstandingLookupsPerHost == 2)
        let waiters = (0..<2).map { _ in Task { try await resolver.resolve(host: "hang.test") } }
        #expect(await eventually(within: .seconds(10)) { hanging.startedCount == 2 })
        for waiter in waiters { waiter.cancel() }
        for waiter in waiters { _ = await waiter.result }
        do {
            _ = try await resolver.resolve(host: "HANG.test")  // the same name, in another case
            Issue.record("a third lookup of the same host must be refused while two block")
        } catch let error as ResolutionError {
            #expect(error.description.contains("2 DNS lookups of this host are already waiting"), "\(error)")
        }
        #expect(hanging.startedCount == 2, "the refused lookup took no thread")
        // Another name still resolves.
        let other = Task { try await resolver.resolve(host: "other.test") }
        #expect(await eventually(within: .seconds(10)) { hanging.startedCount == 3 })
        hanging.release(3)
        #expect(try await other.value == [.v4(127, 0, 0, 1)])
        #expect(await eventually(within: .seconds(10)) { resolver.outstandingLookups == 0 })
        // Once the hanging lookups returned, the name may be looked up again.
        hanging.release(1)
        #expect(try await resolver.resolve(host: "hang.test") == [.v4(127, 0, 0, 1)])
    }

    @Test func aHopsLookupIsBoundedByWhatIsLeftOfTheDownload() {
        let now = ContinuousClock.now
        let wide = GuardedDataLoader.lookupLimit(connectTimeout: .seconds(10), until: now + .seconds(25), now: now)
        #expect(wide.limit == .seconds(10) && !wide.endsAtDeadline)
        let near = GuardedDataLoader.lookupLimit(connectTimeout: .seconds(10), until: now + .seconds(3), now: now)
        #expect(near.limit == .seconds(3) && near.endsAtDeadline)
        let past = GuardedDataLoader.lookupLimit(connectTimeout: .seconds(10), until: now - .seconds(1), now: now)
        #expect(past.limit == .zero && past.endsAtDeadline)
    }

    /// A redirect to a name whose lookup hangs, after a first hop whose lookup took half a second
    /// of the download's four: the redirect's lookup is waited for only what is left of them, and
    /// the download fails as timed out, not at the hop's connect timeout (30 s) nor a whole
    /// download timeout after the hop (which failed as a DNS timeout). The 3.5 s left leave room
    /// for a loaded machine to make the first hop.
    @Test func aRedirectHopsLookupEndsByTheDownloadsDeadline() async throws {
        let hanging = HangingLookup()
        defer { hanging.release(10) }
        let resolver = StaticResolver(
            ["origin.test": [.v4(127, 0, 0, 1)]], fallback: SystemResolver(maximumOutstandingLookups: 4, lookup: hanging.lookup))
        try await withTestServer { server in
            let target = "http://hang.origin.test:\(server.port)/image"
            server.setBehavior("/start", .status(302, headers: ["Location": target]))
            let downloadTimeout = Duration.seconds(4)
            let loader = try GuardedDataLoaderTests.makeLoader(
                resolver: DelayedResolver(first: resolver, delay: .milliseconds(500)),
                configuration: DataLoader.Configuration(connectTimeout: .seconds(30), downloadTimeout: downloadTimeout))
            let url = try #require(URL(string: "http://origin.test:\(server.port)/start"))
            let error = await #expect(throws: ImagePipeline.Error.self) {
                try await loader.loadData(for: DataLoader.Request(url: url), progress: { _ in })
            }
            #expect(error == .timedOut(url, .download, after: downloadTimeout), "\(String(describing: error))")
            #expect(hanging.startedCount == 1, "the hop's lookup began")
            #expect(server.requestCount(for: "/start") == 1)
            try await loader.shutdown()
        }
    }

    /// Resolves through `first`, taking `delay` longer for `origin.test` (a first hop's slow
    /// lookup: most of the download's time gone before the redirect's).
    struct DelayedResolver: HostResolving {
        let first: any HostResolving
        let delay: Duration

        func resolve(host: String) async throws -> [IPAddress] {
            if host == "origin.test" { try await Task.sleep(for: delay) }
            return try await first.resolve(host: host)
        }
    }
}
#endif
