import Foundation
import Imago
import ImagoTestSupport
import Testing

/// The hit path is inlined into callers and only sets a bit; eviction gives a second chance to what
/// was hit (CLOCK). These tests pin down that order against a textbook model, in this module as in
/// any other, and that it keeps an exact LRU's hit rate on skewed traffic.
@Suite("MemoryCache evicts in second-chance (CLOCK) order")
struct MemoryCacheEvictionOrderTests {
    /// Textbook second chance: a FIFO queue (oldest first) and a referenced bit per key. Making
    /// room clears the bit of each referenced oldest key and requeues it, and evicts the first
    /// oldest key without one.
    private struct ReferenceSecondChance {
        let capacity: Int
        var queue: [Int] = []
        var referenced: Set<Int> = []

        mutating func access(_ key: Int) -> Bool {
            if queue.contains(key) {
                referenced.insert(key)
                return true
            }
            if queue.count == capacity {
                while referenced.remove(queue[0]) != nil { queue.append(queue.removeFirst()) }
                queue.removeFirst()
            }
            queue.append(key)
            return false
        }
    }

    /// A textbook LRU: an array ordered from least to most recently used.
    private struct ReferenceLRU {
        let capacity: Int
        var order: [Int] = []

        mutating func access(_ key: Int) -> Bool {
            if let index = order.firstIndex(of: key) {
                order.remove(at: index)
                order.append(key)
                return true
            }
            if order.count == capacity { order.removeFirst() }
            order.append(key)
            return false
        }
    }

    /// Keys drawn so that small ones are popular, as real traffic favours popular images.
    private static func skewedKeys(_ count: Int, seed: UInt64) -> [Int] {
        var generator = SplitMix(seed: seed)
        return (0..<count).map { _ in
            let u = Double.random(in: 0..<1, using: &generator)
            return Int(u * u * 200)
        }
    }

    @Test("Hit for hit the same as a textbook second-chance cache", arguments: [1, 7, 50])
    func matchesReference(capacity: Int) {
        let cache = MemoryCache<Int, Int>(configuration: .init(countLimit: capacity))
        var reference = ReferenceSecondChance(capacity: capacity)
        for (step, key) in Self.skewedKeys(20_000, seed: UInt64(capacity)).enumerated() {
            let hit = cache.value(forKey: key) != nil
            #expect(hit == reference.access(key), "step \(step), key \(key)")
            if !hit { cache.store(key, forKey: key, cost: 1) }
        }
        #expect(cache.totalCount == reference.queue.count)
        let statistics = cache.statistics
        #expect(statistics.hits + statistics.misses == 20_000)
    }

    @Test("On skewed traffic the hit rate is within one point of an exact LRU's", arguments: [10, 50])
    func hitRateMatchesLRU(capacity: Int) {
        let cache = MemoryCache<Int, Int>(configuration: .init(countLimit: capacity))
        var lru = ReferenceLRU(capacity: capacity)
        var (ours, exact) = (0, 0)
        let keys = Self.skewedKeys(50_000, seed: 7)
        for key in keys {
            if cache.value(forKey: key) != nil { ours += 1 } else { cache.store(key, forKey: key, cost: 1) }
            if lru.access(key) { exact += 1 }
        }
        let difference = Double(ours - exact) / Double(keys.count) * 100
        #expect(abs(difference) < 1, "second chance \(ours) hits, exact LRU \(exact) of \(keys.count)")
    }

    @Test("An entry hit since eviction last looked survives one that was not")
    func hitEntrySurvives() {
        let cache = MemoryCache<String, Int>(configuration: .init(countLimit: 3))
        cache.store(1, forKey: "a", cost: 1)
        cache.store(2, forKey: "b", cost: 1)
        cache.store(3, forKey: "c", cost: 1)
        #expect(cache.value(forKey: "a") == 1)
        cache.store(4, forKey: "d", cost: 1)  // "a" is oldest but was read: "b" goes
        #expect(cache.contains("a") && !cache.contains("b") && cache.contains("c") && cache.contains("d"))
        // Every entry read (oldest first: c, a, d): one pass clears the bits and the oldest, "c",
        // goes; never the entry being stored.
        for key in ["a", "c", "d"] { _ = cache.value(forKey: key) }
        cache.store(5, forKey: "e", cost: 1)
        #expect(!cache.contains("c") && cache.contains("a") && cache.contains("d") && cache.contains("e"))
    }

    @Test("Hits on pinned and unpinned entries each count in their own tier")
    func pinnedAndUnpinnedTiers() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 100, countLimit: 4, pinnedCostLimit: 50))
        cache.store(1, forKey: "p1", cost: 10, pinned: true)
        cache.store(2, forKey: "p2", cost: 10, pinned: true)
        cache.store(3, forKey: "u1", cost: 10)
        cache.store(4, forKey: "u2", cost: 10)
        #expect(cache.value(forKey: "p1") == 1)
        #expect(cache.value(forKey: "u1") == 3)
        cache.store(5, forKey: "u3", cost: 10)  // over the count: the unpinned entry not read goes
        #expect(!cache.contains("u2") && cache.contains("u1") && cache.contains("u3"))
        cache.trim(toCount: 2)  // unpinned first, then pinned, the one read last
        #expect(cache.contains("p1") && cache.contains("p2") && cache.totalCount == 2)
        cache.trim(toCount: 1)
        #expect(cache.contains("p1") && !cache.contains("p2"))
    }

    @Test("When pinned entries fill the cache, a new unpinned entry is not kept")
    func pinnedEntriesFillTheCache() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 100, countLimit: 2, pinnedCostLimit: 100))
        cache.store(1, forKey: "p1", cost: 10, pinned: true)
        cache.store(2, forKey: "p2", cost: 10, pinned: true)
        cache.store(3, forKey: "u1", cost: 10)
        #expect(cache.contains("p1") && cache.contains("p2") && !cache.contains("u1") && cache.totalCount == 2)
    }
}
