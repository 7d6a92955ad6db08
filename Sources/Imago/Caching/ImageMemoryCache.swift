/// The memory cache a pipeline keeps its decoded images in: ``MemoryCache`` keyed by a request's
/// ``ImageRequest/processedKey``. ``ImagePipeline/Configuration/memoryCache`` holds one;
/// `ImageMemoryCache(configuration: .init(costLimit: 50_000_000))` makes another.
public typealias ImageMemoryCache = MemoryCache<CacheKey, ImageContainer>
