import Foundation
import Imago
import ImagoTestSupport
import Testing
@testable import ImagoUI

/// What memory warnings do to the caches: the decision (`MemoryTrimPolicy`) and the trimming of
/// every watched pipeline (`MemoryPressureTrimmer`); on Apple platforms only the subscription to
/// the system's signal is left, and it calls the same `trim(for:)`.
@Suite("Memory pressure")
struct MemoryPressureTests {
    @Test("How much each level keeps", arguments: [
        (MemoryPressure.warning, 1_000, 500 as Int?), (.critical, 1_000, 0), (.warning, 0, nil), (.critical, 0, nil),
        (.warning, 1, 0), (.warning, 999, 499),
    ])
    func defaultPolicy(_ pressure: MemoryPressure, _ cost: Int, _ target: Int?) {
        #expect(MemoryTrimPolicy.default.targetCost(for: pressure, currentCost: cost) == target)
    }

    @Test("Fractions outside 0...1 are clamped")
    func clamped() {
        let policy = MemoryTrimPolicy(keptOnWarning: 2, keptOnCritical: -1)
        #expect(policy.targetCost(for: .warning, currentCost: 1_000) == nil)
        #expect(policy.targetCost(for: .critical, currentCost: 1_000) == 0)
        #expect(MemoryTrimPolicy(keptOnWarning: .nan).targetCost(for: .warning, currentCost: 10) == 0)
    }

    /// A pipeline whose memory cache holds `count` decoded 10x10 images, least recent first.
    static func filledPipeline(count: Int) throws -> (ImagePipeline, [CacheKey]) {
        let pipeline = ImagePipeline(configuration: .init(memoryCache: MemoryCache(), connectivity: .alwaysReachable))
        var keys: [CacheKey] = []
        for index in 0..<count {
            let container = try ImageContainer(bitmap: Fixtures.picture(width: 10, height: 10, seed: index), format: .png)
            let key = CacheKey("image-\(index)")
            pipeline.memoryCache?.store(container, forKey: key, cost: container.cost)
            keys.append(key)
        }
        return (pipeline, keys)
    }

    @Test("A warning halves the cache, least recently used first; critical empties it")
    func trimsWatchedPipelines() throws {
        let (pipeline, keys) = try Self.filledPipeline(count: 8)
        let (other, _) = try Self.filledPipeline(count: 4)
        let cache = try #require(pipeline.memoryCache)
        let trimmer = MemoryPressureTrimmer()
        trimmer.watch(pipeline)
        trimmer.watch(pipeline)
        trimmer.watch(other)
        #expect(trimmer.watchedPipelines.count == 2)
        let full = cache.totalCost
        let otherFull = other.memoryCache?.totalCost ?? 0
        #expect(full == 8 * 400 && otherFull == 4 * 400)

        let freed = trimmer.trim(for: .warning)

        #expect(cache.totalCost == full / 2)
        #expect(freed == full / 2 + otherFull / 2)
        #expect(!cache.contains(keys[0]) && cache.contains(keys[7]))
        trimmer.trim(for: .critical)
        #expect(cache.totalCost == 0 && other.memoryCache?.totalCost == 0)
        #expect(trimmer.trim(for: .critical) == 0)
    }

    @Test("A pipeline that went away is no longer watched")
    func watchesWeakly() throws {
        let trimmer = MemoryPressureTrimmer()
        do {
            let (pipeline, _) = try Self.filledPipeline(count: 1)
            trimmer.watch(pipeline)
            #expect(trimmer.watchedPipelines.count == 1)
        }
        #expect(trimmer.watchedPipelines.isEmpty)
        #expect(trimmer.trim(for: .critical) == 0)
    }

    @Test("Every loader's pipeline is watched by the shared trimmer") @MainActor
    func loadersRegister() throws {
        let (pipeline, _) = try Self.filledPipeline(count: 2)
        _ = ImageLoader(pipeline: pipeline)
        #expect(MemoryPressureTrimmer.shared.watchedPipelines.contains { $0 === pipeline })
    }
}
