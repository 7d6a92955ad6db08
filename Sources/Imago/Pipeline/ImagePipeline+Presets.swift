extension ImagePipeline.Configuration {
    /// Every default: 6 concurrent downloads, a memory cache of 20% of physical memory (at most
    /// 512 MiB, 1,000 images), no disk cache, 3 attempts per download, `.veryHigh` pinned.
    public static var `default`: Self { Self() }

    /// For image-heavy screens on capable hardware: 12 concurrent downloads, a memory cache twice
    /// the default (40% of physical memory, at most 1 GiB, 3,000 images), and 64 MiB of decoded
    /// originals, so the sizes of one image (a thumbnail and its detail view) share one decode.
    public static var highPerformance: Self {
        let memory = MemoryCache<CacheKey, ImageContainer>.Configuration.defaultCostLimit
        var configuration = Self(
            memoryCache: MemoryCache(configuration: .init(costLimit: min(memory * 2, 1 << 30), countLimit: 3_000)),
            maximumConcurrentDownloads: 12)
        configuration.decodedOriginalsBytes = 64 * 1024 * 1024
        return configuration
    }

    /// For constrained devices and busy servers: a 32 MiB, 100-image memory cache without a pinned
    /// tier, processed images (thumbnails) kept on disk so originals need not be decoded again,
    /// and 4 concurrent downloads.
    public static var lowMemory: Self {
        Self(
            memoryCache: MemoryCache(configuration: .init(costLimit: 32 << 20, countLimit: 100)),
            storesProcessedImagesOnDisk: true, maximumConcurrentDownloads: 4, pinnedPriority: nil)
    }

    /// For apps that must show something without a network: any cached copy, even expired, is
    /// served before the network is asked, and requests wait up to 10 s for connectivity.
    public static var offlineFirst: Self {
        Self(servesExpiredEntries: true, waitsForConnectivity: .seconds(10))
    }
}
