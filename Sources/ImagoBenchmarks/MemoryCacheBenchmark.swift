import Foundation
import Imago
import ImagoTestSupport
import Synchronization

/// Benchmark 1: memory-cache hits, through `MemoryCache` and through `ImagePipeline.cachedImage(for:)`,
/// against a bare `Locked<[CacheKey: ImageContainer]>` lookup of the same keys; hits per second on
/// 1, 2 and all cores; and the hit rate on a skewed (Zipf) workload beside an exact LRU, so that
/// speed is never bought with a worse cache.
enum MemoryCacheBenchmark {
    static let keyCount = 10_000
    static let lookups = 200_000

    static func run(repetitions: Int, quick: Bool = false) throws -> [Figure] {
        let keyCount = quick ? 1_000 : Self.keyCount
        let lookups = quick ? 20_000 : Self.lookups
        let container = try ImageContainer(bitmap: Bitmap(width: 1, height: 1), format: .jpeg)
        let urls = (0..<keyCount).map { URL(string: "https://images.example.com/photos/\($0).jpg")! }
        let requests = urls.map { ImageRequest(url: $0) }
        let keys = requests.map(\.processedKey)
        // A fixed, scattered visiting order, the same for every contender.
        var random = SystemRandomNumberGenerator()
        let order = (0..<lookups).map { _ in Int.random(in: 0..<keyCount, using: &random) }

        let configuration = MemoryCache<CacheKey, ImageContainer>.Configuration(countLimit: keyCount * 2)
        let cache = MemoryCache<CacheKey, ImageContainer>(configuration: configuration)
        let pipelineCache = MemoryCache<CacheKey, ImageContainer>(configuration: configuration)
        let pipeline = ImagePipeline(configuration: .init(memoryCache: pipelineCache, connectivity: .alwaysReachable))
        var dictionary: [CacheKey: ImageContainer] = [:]
        for key in keys {
            cache.store(container, forKey: key, cost: 4)
            pipelineCache.store(container, forKey: key, cost: 4)
            dictionary[key] = container
        }
        let bare = Locked(dictionary)

        func perHit(_ seconds: Double) -> Double { seconds / Double(lookups) * 1e9 }
        // Every contender hands each hit's container to the caller, as a hit is used: a loop that
        // only compared the result with nil let the optimizer drop the copy (and its retains)
        // from the inlined lookups of the baseline and of MemoryCache, but not from cachedImage.
        let ours: () -> Double = {
            var hits = 0
            var kept: ImageContainer?
            let seconds = time {
                for i in order { if let found = cache.value(forKey: keys[i]) { hits += 1; kept = found } }
            }
            blackHole(kept)
            precondition(hits == lookups, "MemoryCache missed")
            return perHit(seconds)
        }
        let pipelineHit: () -> Double = {
            var hits = 0
            var kept: ImageContainer?
            let seconds = time {
                for i in order { if let found = pipeline.cachedImage(for: requests[i]) { hits += 1; kept = found } }
            }
            blackHole(kept)
            precondition(hits == lookups, "cachedImage missed")
            return perHit(seconds)
        }
        let baseline: () -> Double = {
            var hits = 0
            var kept: ImageContainer?
            let seconds = time {
                for i in order { if let found = bare.withLock({ $0[keys[i]] }) { hits += 1; kept = found } }
            }
            blackHole(kept)
            precondition(hits == lookups, "dictionary missed")
            return perHit(seconds)
        }
        // What the pipeline path costs before it reaches the cache: building the key from the request.
        let keyOnly: () -> Double = {
            var total = 0
            let seconds = time { for i in order { total &+= requests[i].processedKey.rawValue.utf8.count } }
            blackHole(total)
            return perHit(seconds)
        }
        // Warm up every path once.
        _ = (ours(), pipelineHit(), baseline(), keyOnly())
        let m = try Interleaved(repetitions: repetitions).run([ours, pipelineHit, baseline, keyOnly])
        var figures = [
            Figure(
                benchmark: "memory", name: "MemoryCache.value(forKey:) hit, \(keyCount / 1000)k keys", unit: "ns/hit",
                higherIsBetter: false, ours: m[0], baselineName: "Locked<[CacheKey: ImageContainer]>",
                baseline: m[2], repetitions: repetitions),
            Figure(
                benchmark: "memory", name: "ImagePipeline.cachedImage(for:) hit", unit: "ns/hit",
                higherIsBetter: false, ours: m[1], baselineName: "Locked<[CacheKey: ImageContainer]>",
                baseline: m[2], extra: [("ImageRequest.processedKey alone", m[3])], repetitions: repetitions),
        ]
        figures += try threads(
            repetitions: repetitions, cache: cache, dictionary: dictionary, keys: keys, order: order)
        figures.append(zipfHitRate(repetitions: repetitions, quick: quick))
        return figures
    }

    /// Hits per second with 1, 2 and as many threads as the machine has, every thread looking up
    /// the same scattered keys: the cache beside the bare dictionary behind one mutex.
    static func threads(
        repetitions: Int, cache: MemoryCache<CacheKey, ImageContainer>, dictionary: [CacheKey: ImageContainer],
        keys: [CacheKey], order: [Int]
    ) throws -> [Figure] {
        let counts = Array(Set([1, 2, ProcessInfo.processInfo.activeProcessorCount])).sorted()
        var figures: [Figure] = []
        for threadCount in counts {
            func hitsPerSecond(_ lookup: @escaping @Sendable (CacheKey) -> Bool) -> () -> Double {
                {
                    let missed = Atomic<Int>(0)
                    let seconds = time {
                        DispatchQueue.concurrentPerform(iterations: threadCount) { thread in
                            var misses = 0
                            // Each thread starts at its own place in the order, so they do not walk in step.
                            let start = thread * order.count / threadCount
                            for offset in 0..<order.count {
                                let index = order[(start + offset) % order.count]
                                if !lookup(keys[index]) { misses += 1 }
                            }
                            missed.add(misses, ordering: .relaxed)
                        }
                    }
                    precondition(missed.load(ordering: .relaxed) == 0, "a lookup missed")
                    return Double(order.count * threadCount) / seconds
                }
            }
            let bareBox = BareDictionary(dictionary)
            let m = try Interleaved(repetitions: repetitions).run([
                hitsPerSecond { cache.value(forKey: $0) != nil },
                hitsPerSecond { bareBox.contains($0) },
            ])
            figures.append(
                Figure(
                    benchmark: "memory", name: "MemoryCache hits/s, \(threadCount) thread\(threadCount == 1 ? "" : "s")",
                    unit: "hits/s", higherIsBetter: true, ours: m[0],
                    baselineName: "Locked<[CacheKey: ImageContainer]>, same threads", baseline: m[1],
                    repetitions: repetitions))
        }
        return figures
    }

    /// The share of lookups that hit when keys are drawn from a Zipf distribution (a few images are
    /// asked for most of the time) and every miss stores its key: MemoryCache beside an exact LRU of
    /// the same capacity, on the same sequence.
    static func zipfHitRate(repetitions: Int, quick: Bool) -> Figure {
        let keyCount = quick ? 2_000 : 20_000
        let capacity = keyCount / 20
        let lookups = quick ? 50_000 : 1_000_000
        let exponent = 0.9
        var generator = SplitMix(seed: 0x1234_5678)
        let sequence = ZipfSampler(count: keyCount, exponent: exponent).sample(lookups, using: &generator)
        let keys = (0..<keyCount).map { CacheKey("https://images.example.com/zipf/\($0).jpg") }

        let cache = MemoryCache<CacheKey, Int>(configuration: .init(countLimit: capacity))
        var ourHits = 0
        for index in sequence {
            if cache.value(forKey: keys[index]) != nil {
                ourHits += 1
            } else {
                cache.store(index, forKey: keys[index], cost: 1)
            }
        }
        var reference = ExactLRU(capacity: capacity)
        var referenceHits = 0
        for index in sequence where reference.access(index) { referenceHits += 1 }
        return Figure(
            benchmark: "memory",
            name: "MemoryCache hit rate, Zipf(\(exponent)) over \(keyCount / 1000)k keys, capacity \(capacity)",
            unit: "% hits", higherIsBetter: true, ours: 100 * Double(ourHits) / Double(lookups),
            baselineName: "exact LRU, same capacity and sequence", baseline: 100 * Double(referenceHits) / Double(lookups),
            repetitions: 1)
    }
}

/// The bare dictionary behind its mutex, as a `Sendable` reference the threads share.
private final class BareDictionary: Sendable {
    let bare: Locked<[CacheKey: ImageContainer]>
    init(_ dictionary: [CacheKey: ImageContainer]) { bare = Locked(dictionary) }
    func contains(_ key: CacheKey) -> Bool { bare.withLock { $0[key] } != nil }
}

/// Draws ranks 0..<count with probability proportional to 1 / (rank + 1)^exponent, then maps ranks
/// to shuffled key indices so that popular keys are scattered through the cache.
struct ZipfSampler {
    var cumulative: [Double]
    var permutation: [Int]

    init(count: Int, exponent: Double) {
        var total = 0.0
        var sums: [Double] = []
        sums.reserveCapacity(count)
        for rank in 0..<count {
            total += 1 / pow(Double(rank + 1), exponent)
            sums.append(total)
        }
        cumulative = sums.map { $0 / total }
        var generator = SplitMix(seed: 42)
        permutation = Array(0..<count).shuffled(using: &generator)
    }

    func sample(_ draws: Int, using generator: inout SplitMix) -> [Int] {
        (0..<draws).map { _ in
            let u = Double.random(in: 0..<1, using: &generator)
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < u { low = middle + 1 } else { high = middle }
            }
            return permutation[low]
        }
    }
}

/// The reference: a textbook LRU (dictionary + doubly linked list) that moves every hit to the front.
struct ExactLRU {
    let capacity: Int
    private var slots: [Int: Int] = [:]
    private var keys: [Int] = []
    private var previous: [Int] = []
    private var next: [Int] = []
    private var head = -1
    private var tail = -1

    init(capacity: Int) { self.capacity = capacity }

    /// True on a hit; a miss inserts `key`, evicting the least recently used key when full.
    mutating func access(_ key: Int) -> Bool {
        if let slot = slots[key] {
            unlink(slot)
            pushFront(slot)
            return true
        }
        let slot: Int
        if keys.count < capacity {
            slot = keys.count
            keys.append(key)
            previous.append(-1)
            next.append(-1)
        } else {
            slot = tail
            unlink(slot)
            slots[keys[slot]] = nil
            keys[slot] = key
        }
        slots[key] = slot
        pushFront(slot)
        return false
    }

    private mutating func unlink(_ slot: Int) {
        if previous[slot] >= 0 { next[previous[slot]] = next[slot] } else { head = next[slot] }
        if next[slot] >= 0 { previous[next[slot]] = previous[slot] } else { tail = previous[slot] }
    }

    private mutating func pushFront(_ slot: Int) {
        previous[slot] = -1
        next[slot] = head
        if head >= 0 { previous[head] = slot } else { tail = slot }
        head = slot
    }
}
