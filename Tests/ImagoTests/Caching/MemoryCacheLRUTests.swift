import Foundation
import Imago
import Testing

/// The hit path is inlined into callers and relinks through a non-generic order; these tests pin
/// down that it still is an exact LRU, in this module as in any other.
@Suite("MemoryCache is an exact LRU")
struct MemoryCacheLRUTests {
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

    @Test("Hit for hit the same as a reference LRU on a skewed random sequence", arguments: [1, 7, 50])
    func matchesReference(capacity: Int) {
        let cache = MemoryCache<Int, Int>(configuration: .init(countLimit: capacity))
        var reference = ReferenceLRU(capacity: capacity)
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            // Squaring a uniform draw favours small keys, as real traffic favours popular images.
            let u = Double.random(in: 0..<1, using: &generator)
            let key = Int(u * u * 200)
            let hit = cache.value(forKey: key) != nil
            #expect(hit == reference.access(key), "step \(step), key \(key)")
            if !hit { cache.store(key, forKey: key, cost: 1) }
        }
        #expect(cache.totalCount == reference.order.count)
        let statistics = cache.statistics
        #expect(statistics.hits + statistics.misses == 20_000)
    }

    @Test("Hits on pinned and unpinned entries each refresh their own tier")
    func pinnedAndUnpinnedTiers() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 100, countLimit: 4, pinnedCostLimit: 50))
        cache.store(1, forKey: "p1", cost: 10, pinned: true)
        cache.store(2, forKey: "p2", cost: 10, pinned: true)
        cache.store(3, forKey: "u1", cost: 10)
        cache.store(4, forKey: "u2", cost: 10)
        #expect(cache.value(forKey: "p1") == 1)
        #expect(cache.value(forKey: "u1") == 3)
        cache.store(5, forKey: "u3", cost: 10)  // over the count: the least recent unpinned goes
        #expect(!cache.contains("u2") && cache.contains("u1") && cache.contains("u3"))
        cache.trim(toCount: 2)  // unpinned first, then pinned in LRU order
        #expect(cache.contains("p1") && cache.contains("p2") && cache.totalCount == 2)
        cache.trim(toCount: 1)
        #expect(cache.contains("p1") && !cache.contains("p2"))
    }
}
