import Foundation
import Imago
import ImagoTestSupport
import Testing

@Suite("MemoryCache")
struct MemoryCacheTests {
    private func makeCache(
        costLimit: Int = 1_000, countLimit: Int = 100, pinnedCostLimit: Int? = nil
    ) -> MemoryCache<String, Int> {
        MemoryCache(
            configuration: .init(costLimit: costLimit, countLimit: countLimit, pinnedCostLimit: pinnedCostLimit))
    }

    @Test func storesAndReadsValues() {
        let cache = makeCache()
        cache.store(1, forKey: "a", cost: 10)
        cache.store(2, forKey: "a", cost: 20)
        #expect(cache.value(forKey: "a") == 2)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.totalCost == 20)
        #expect(cache.totalCount == 1)
        cache.removeValue(forKey: "a")
        #expect(cache.value(forKey: "a") == nil)
        let statistics = cache.statistics
        #expect(statistics.count == 0 && statistics.cost == 0 && statistics.pinnedCount == 0)
        #expect(statistics.hits == 1 && statistics.misses == 2)
    }

    @Test func readRefreshesRecencySoTheLeastRecentlyReadIsEvicted() {
        let cache = makeCache(countLimit: 3)
        cache.store(1, forKey: "a", cost: 1)
        cache.store(2, forKey: "b", cost: 1)
        cache.store(3, forKey: "c", cost: 1)
        #expect(cache.value(forKey: "a") == 1)
        cache.store(4, forKey: "d", cost: 1)
        #expect(!cache.contains("b"))
        #expect(cache.contains("a") && cache.contains("c") && cache.contains("d"))
    }

    @Test func containsDoesNotRefreshRecency() {
        let cache = makeCache(countLimit: 2)
        cache.store(1, forKey: "a", cost: 1)
        cache.store(2, forKey: "b", cost: 1)
        #expect(cache.contains("a"))
        cache.store(3, forKey: "c", cost: 1)
        #expect(!cache.contains("a"))
        #expect(cache.statistics.hits == 0)
    }

    @Test func costLimitEvictsLeastRecentlyUsedUntilItHolds() {
        let cache = makeCache(costLimit: 100)
        cache.store(1, forKey: "a", cost: 40)
        cache.store(2, forKey: "b", cost: 40)
        cache.store(3, forKey: "c", cost: 40)
        #expect(!cache.contains("a"))
        #expect(cache.totalCost == 80)
        cache.store(4, forKey: "d", cost: 100)
        #expect(cache.totalCount == 1)
        #expect(cache.value(forKey: "d") == 4)
    }

    @Test func countLimitEvictsLeastRecentlyUsed() {
        let cache = makeCache(countLimit: 2)
        for (index, key) in ["a", "b", "c", "d"].enumerated() { cache.store(index, forKey: key, cost: 0) }
        #expect(cache.totalCount == 2)
        #expect(cache.contains("c") && cache.contains("d"))
    }

    @Test func itemLargerThanTheCostLimitIsNotStoredAndDropsTheOldValue() {
        let cache = makeCache(costLimit: 100)
        cache.store(1, forKey: "small", cost: 10)
        cache.store(2, forKey: "big", cost: 10)
        cache.store(3, forKey: "big", cost: 101)
        #expect(cache.value(forKey: "big") == nil)
        #expect(cache.value(forKey: "small") == 1)
        #expect(cache.totalCost == 10)
    }

    @Test func entriesExpireAfterTheirLifetimeOnTheInjectedClock() {
        let clock = ManualClock()
        let cache = MemoryCache<String, Int>(
            configuration: .init(costLimit: 100, entryLifetime: .seconds(10)), clock: clock)
        cache.store(1, forKey: "a", cost: 5)
        clock.advance(by: .seconds(9))
        #expect(cache.value(forKey: "a") == 1)
        cache.store(2, forKey: "b", cost: 5)
        clock.advance(by: .seconds(1))
        #expect(!cache.contains("a"))
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.totalCost == 5)
        #expect(cache.value(forKey: "b") == 2)
        clock.advance(by: .seconds(9))
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.statistics.misses == 2)
    }

    @Test func pinnedEntriesSurviveLRUPressure() {
        let cache = makeCache(costLimit: 100, pinnedCostLimit: 50)
        cache.store(0, forKey: "pinned", cost: 30, pinned: true)
        for index in 1...20 { cache.store(index, forKey: "u\(index)", cost: 20) }
        #expect(cache.value(forKey: "pinned") == 0)
        #expect(cache.totalCost <= 100)
        #expect(cache.pinnedCost == 30)
        #expect(cache.statistics.pinnedCount == 1)
    }

    @Test func pinnedStoreBeyondThePinnedLimitIsStoredUnpinned() {
        let cache = makeCache(costLimit: 100, pinnedCostLimit: 50)
        cache.store(1, forKey: "p1", cost: 30, pinned: true)
        cache.store(2, forKey: "p2", cost: 30, pinned: true)
        #expect(cache.pinnedCost == 30)
        cache.store(3, forKey: "u", cost: 40)
        cache.store(4, forKey: "v", cost: 30)
        #expect(!cache.contains("p2"))
        #expect(cache.contains("p1"))
    }

    @Test func trimEvictsUnpinnedLeastRecentlyUsedFirstThenPinned() {
        let cache = makeCache(pinnedCostLimit: 100)
        cache.store(1, forKey: "p1", cost: 10, pinned: true)
        cache.store(2, forKey: "p2", cost: 10, pinned: true)
        cache.store(3, forKey: "u1", cost: 10)
        cache.store(4, forKey: "u2", cost: 10)
        _ = cache.value(forKey: "u1")
        _ = cache.value(forKey: "p1")
        cache.trim(toCost: 30)
        #expect(!cache.contains("u2") && cache.contains("u1"))
        cache.trim(toCost: 20)
        #expect(!cache.contains("u1"))
        cache.trim(toCost: 10)
        #expect(!cache.contains("p2") && cache.contains("p1"))
        #expect(cache.pinnedCost == 10)
        cache.trim(toCount: 0)
        #expect(cache.totalCount == 0 && cache.totalCost == 0 && cache.pinnedCost == 0)
    }

    @Test func trimToCountFollowsTheSameOrder() {
        let cache = makeCache(pinnedCostLimit: 100)
        cache.store(1, forKey: "p", cost: 1, pinned: true)
        cache.store(2, forKey: "u1", cost: 1)
        cache.store(3, forKey: "u2", cost: 1)
        cache.trim(toCount: 2)
        #expect(!cache.contains("u1"))
        cache.trim(toCount: 1)
        #expect(cache.contains("p") && cache.totalCount == 1)
    }

    @Test func removeAllEvictsPinnedEntriesToo() {
        let cache = makeCache(pinnedCostLimit: 100)
        cache.store(1, forKey: "p", cost: 10, pinned: true)
        cache.store(2, forKey: "u", cost: 10)
        cache.removeAll()
        #expect(cache.statistics.count == 0 && cache.pinnedCost == 0)
        cache.store(3, forKey: "again", cost: 10, pinned: true)
        #expect(cache.value(forKey: "again") == 3)
    }

    @Test func defaultConfiguration() {
        var configuration = MemoryCache<String, Int>.Configuration()
        #expect(configuration.costLimit > 0 && configuration.costLimit <= 512 * 1024 * 1024)
        #expect(configuration.countLimit == 1_000)
        #expect(configuration.entryLifetime == nil)
        #expect(configuration.pinnedCostLimit == configuration.costLimit / 4)
        configuration.costLimit = 400
        #expect(configuration.pinnedCostLimit == 100)
        configuration.pinnedCostLimit = 7
        configuration.costLimit = 800
        #expect(configuration.pinnedCostLimit == 7)
    }

    /// Many tasks store, read and remove at once; afterwards the totals match what is stored and
    /// every value read belonged to its key.
    @Test func concurrentAccessStaysConsistent() async {
        let cache = MemoryCache<Int, Int>(
            configuration: .init(costLimit: 150, countLimit: 40, pinnedCostLimit: 30))
        let cost: @Sendable (Int) -> Int = { $0 % 7 + 1 }
        let wrongValues = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var wrong = 0
                    var generator = SystemRandomNumberGenerator()
                    for step in 0..<3_000 {
                        let key = Int.random(in: 0..<64, using: &generator)
                        switch (step + worker) % 5 {
                        case 0, 1: cache.store(key * 10, forKey: key, cost: cost(key), pinned: key % 9 == 0)
                        case 2: cache.removeValue(forKey: key)
                        case 3 where step % 500 == 0: cache.trim(toCost: 60)
                        default: if let value = cache.value(forKey: key), value != key * 10 { wrong += 1 }
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrongValues == 0)
        let present = (0..<64).filter { cache.contains($0) }
        let statistics = cache.statistics
        #expect(statistics.count == present.count)
        #expect(statistics.cost == present.map(cost).reduce(0, +))
        #expect(statistics.count <= 40 && statistics.cost <= 150)
        #expect(statistics.pinnedCost <= 30)
        for key in present { #expect(cache.value(forKey: key) == key * 10) }
    }
}
