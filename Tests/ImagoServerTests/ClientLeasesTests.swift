#if os(Linux)
import Testing

@testable import ImagoServer

/// ``ClientLeases``'s rules on plain values (a client is a number): reuse, least-recently-used
/// eviction, retirement while in use, and exactly one shutdown per client.
@Suite struct ClientLeasesTests {
    /// Makes clients 1, 2, 3… and remembers how many it made.
    struct Factory {
        var made = 0
        mutating func make() -> Int {
            made += 1
            return made
        }
    }

    @Test func reusesTheClientOfAKey() throws {
        var leases = ClientLeases<Int>(capacity: 2)
        var factory = Factory()
        let first = try #require(leases.lease(key: "a") { factory.make() })
        let second = try #require(leases.lease(key: "a") { factory.make() })
        #expect(first.client == 1 && second.client == 1 && factory.made == 1)
        #expect(leases.leaseCount == 2)
        #expect(leases.release(first.lease) == nil && leases.release(second.lease) == nil)
        #expect(leases.leaseCount == 0 && leases.keptCount == 1)
        #expect(leases.release(second.lease) == nil, "a lease ends once")
        #expect(leases.leaseCount == 0)
    }

    /// Of a host's addresses, the one with a kept client is chosen, so rotating DNS answers keep
    /// reusing one client.
    @Test func prefersAKeyThatHasAClient() throws {
        var leases = ClientLeases<Int>(capacity: 2)
        #expect(leases.keptKey(among: ["a", "b"]) == nil)
        let b = try #require(leases.lease(key: "b") { 1 })
        #expect(leases.keptKey(among: ["a", "b"]) == "b")
        #expect(leases.keptKey(among: ["c"]) == nil)
        _ = leases.release(b.lease)
        #expect(leases.keptKey(among: ["a", "b"]) == "b", "an idle kept client counts too")
        _ = leases.close()
        #expect(leases.keptKey(among: ["a", "b"]) == nil)
    }

    @Test func evictsTheLeastRecentlyUsedIdleClientAtOnce() throws {
        var leases = ClientLeases<Int>(capacity: 2)
        var factory = Factory()
        for key in ["a", "b"] {
            let leased = try #require(leases.lease(key: key) { factory.make() })
            _ = leases.release(leased.lease)
        }
        // Using "a" again makes "b" the least recently used.
        let again = try #require(leases.lease(key: "a") { factory.make() })
        _ = leases.release(again.lease)
        let third = try #require(leases.lease(key: "c") { factory.make() })
        #expect(third.evicted == [2], "b's client, idle, is shut down now")
        #expect(leases.keptCount == 2 && leases.liveCount == 2)
        _ = leases.release(third.lease)
        let b = try #require(leases.lease(key: "b") { factory.make() })
        #expect(b.client == 4, "b gets a new client")
        #expect(b.evicted == [1], "now a is the least recently used")
    }

    @Test func retiresAClientInUseAndShutsItDownAtItsLastRelease() throws {
        var leases = ClientLeases<Int>(capacity: 1)
        var factory = Factory()
        let a1 = try #require(leases.lease(key: "a") { factory.make() })
        let a2 = try #require(leases.lease(key: "a") { factory.make() })
        let b = try #require(leases.lease(key: "b") { factory.make() })
        #expect(b.evicted.isEmpty, "a is in use: retired, not shut down")
        #expect(leases.keptCount == 1 && leases.liveCount == 2)
        let a3 = try #require(leases.lease(key: "a") { factory.make() })
        #expect(a3.client == 3, "a retired client takes no new lease")
        #expect(a3.evicted.isEmpty, "b is in use too")
        #expect(leases.release(a1.lease) == nil)
        #expect(leases.release(a2.lease) == 1, "the last lease on the retired client shuts it down")
        #expect(leases.release(b.lease) == 2)
        #expect(leases.release(a3.lease) == nil, "a's new client is kept")
        #expect(leases.keptCount == 1 && leases.liveCount == 1 && leases.leaseCount == 0)
    }

    @Test func closeHandsOutEveryClientOnceAndLeasesNothingMore() throws {
        var leases = ClientLeases<Int>(capacity: 1)
        var factory = Factory()
        let a = try #require(leases.lease(key: "a") { factory.make() })
        let b = try #require(leases.lease(key: "b") { factory.make() })
        #expect(leases.close().sorted() == [1, 2], "kept and retired, in use or not")
        #expect(leases.release(a.lease) == nil && leases.release(b.lease) == nil, "already handed out by close")
        #expect(leases.lease(key: "c") { factory.make() } == nil)
        #expect(factory.made == 2)
        #expect(leases.close().isEmpty)
    }

    /// Many keys in turn, leases held across evictions: every client made is handed out for
    /// shutdown exactly once by the end, and never more than capacity stay idle.
    @Test(arguments: [1, 2, 5])
    func everyClientIsShutDownExactlyOnce(capacity: Int) throws {
        var leases = ClientLeases<Int>(capacity: capacity)
        var factory = Factory()
        var shutDown: [Int] = []
        var held: [ClientLeases<Int>.Lease] = []
        for step in 0..<200 {
            let leased = try #require(leases.lease(key: "k\(step * 7 % 11)") { factory.make() })
            shutDown += leased.evicted
            held.append(leased.lease)
            if held.count > 3 { shutDown += [leases.release(held.removeFirst())].compactMap { $0 } }
            #expect(leases.keptCount <= capacity)
            #expect(leases.liveCount <= capacity + held.count)
        }
        for lease in held { shutDown += [leases.release(lease)].compactMap { $0 } }
        shutDown += leases.close()
        #expect(shutDown.sorted() == Array(1...factory.made))
    }
}
#endif
