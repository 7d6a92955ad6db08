import Foundation
import Imago
import Synchronization

/// Benchmark 1: memory-cache hits, through `MemoryCache` and through `ImagePipeline.cachedImage(for:)`,
/// against a bare `Mutex<[CacheKey: ImageContainer]>` lookup of the same keys.
enum MemoryCacheBenchmark {
    static let keyCount = 10_000
    static let lookups = 200_000

    static func run(repetitions: Int) throws -> [Figure] {
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
        let bare = Mutex(dictionary)

        func perHit(_ seconds: Double) -> Double { seconds / Double(lookups) * 1e9 }
        let ours: () -> Double = {
            var hits = 0
            let seconds = time { for i in order where cache.value(forKey: keys[i]) != nil { hits += 1 } }
            precondition(hits == lookups, "MemoryCache missed")
            return perHit(seconds)
        }
        let pipelineHit: () -> Double = {
            var hits = 0
            let seconds = time { for i in order where pipeline.cachedImage(for: requests[i]) != nil { hits += 1 } }
            precondition(hits == lookups, "cachedImage missed")
            return perHit(seconds)
        }
        let baseline: () -> Double = {
            var hits = 0
            let seconds = time {
                for i in order where bare.withLock({ $0[keys[i]] }) != nil { hits += 1 }
            }
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
        return [
            Figure(
                benchmark: "memory", name: "MemoryCache.value(forKey:) hit, 10k keys", unit: "ns/hit",
                higherIsBetter: false, ours: m[0], baselineName: "Mutex<[CacheKey: ImageContainer]>",
                baseline: m[2], repetitions: repetitions),
            Figure(
                benchmark: "memory", name: "ImagePipeline.cachedImage(for:) hit", unit: "ns/hit",
                higherIsBetter: false, ours: m[1], baselineName: "Mutex<[CacheKey: ImageContainer]>",
                baseline: m[2], extra: [("ImageRequest.processedKey alone", m[3])], repetitions: repetitions),
        ]
    }
}
