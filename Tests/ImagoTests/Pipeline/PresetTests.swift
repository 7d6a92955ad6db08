import Imago
import Testing

@Suite("Configuration presets")
struct PresetTests {
    @Test("The defaults are what their documentation says")
    func defaults() {
        let configuration = ImagePipeline.Configuration.default
        #expect(configuration.maximumConcurrentDownloads == 6)
        #expect(configuration.retryPolicy == RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(500), maximumDelay: .seconds(10)))
        #expect(configuration.diskCache == nil)
        #expect(configuration.memoryCache != nil)
        #expect(configuration.pinnedPriority == .veryHigh)
        #expect(configuration.waitsForConnectivity == nil)
        #expect(!configuration.servesExpiredEntries && !configuration.storesProcessedImagesOnDisk)
        #expect(configuration.honoursHTTPCacheHeaders)
        #expect(configuration.decodingLimits.maximumPixelCount == 100_000_000)
    }

    @Test("highPerformance doubles concurrency and memory")
    func highPerformance() throws {
        let configuration = ImagePipeline.Configuration.highPerformance
        #expect(configuration.maximumConcurrentDownloads == 12)
        let memory = try #require(configuration.memoryCache).configuration
        let defaultLimit = MemoryCache<CacheKey, ImageContainer>.Configuration.defaultCostLimit
        #expect(memory.costLimit == min(defaultLimit * 2, 1 << 30))
        #expect(memory.countLimit == 3_000)
    }

    @Test("lowMemory keeps a small memory cache, no pinned tier, and thumbnails on disk")
    func lowMemory() throws {
        let configuration = ImagePipeline.Configuration.lowMemory
        let memory = try #require(configuration.memoryCache).configuration
        #expect(memory.costLimit == 32 << 20 && memory.countLimit == 100)
        #expect(configuration.pinnedPriority == nil)
        #expect(configuration.storesProcessedImagesOnDisk)
        #expect(configuration.maximumConcurrentDownloads == 4)
    }

    @Test("offlineFirst serves expired entries and waits for the network")
    func offlineFirst() {
        let configuration = ImagePipeline.Configuration.offlineFirst
        #expect(configuration.servesExpiredEntries)
        #expect(configuration.waitsForConnectivity == .seconds(10))
    }
}
