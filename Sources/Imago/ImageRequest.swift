import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What to load and how: a URL (with optional headers), the processing to apply, the cache policy
/// and the priority.
public struct ImageRequest: Sendable {
    /// The image's http or https URL.
    public var url: URL {
        didSet { keys = CacheKeys(self) }
    }
    /// Extra HTTP headers sent with the download. They do not take part in the cache key.
    public var headers: [String: String]
    /// Names of ``headers`` that are credentials (API keys, signed tokens), dropped when a
    /// redirect leads to another origin. `Authorization`, `Proxy-Authorization` and `Cookie`
    /// always are. Default: none.
    public var credentialHeaderNames: Set<String> = []
    /// When set, a thumbnail: the image is scaled down so its longer side is at most this many
    /// pixels, and decoded at a reduced scale (shrink-on-load) so the full-size image is never
    /// held. A ``ThumbnailProcessor`` first among ``processors`` does exactly the same, under the
    /// same cache key. The one name Imago gives "the longest side I need", as ImageIO's
    /// `kCGImageSourceThumbnailMaxPixelSize` does. Default: `nil`.
    public var maximumPixelSize: Int? {
        didSet { keys = CacheKeys(self) }
    }
    /// Processors applied in order after decoding (and after the thumbnail).
    public var processors: [any ImageProcessing] {
        didSet { keys = CacheKeys(self) }
    }
    /// Which caches to read and write, and whether the network may be used.
    public var cachePolicy: CachePolicy
    /// The download's place in the queue; see ``ImageRequest/Priority``.
    public var priority: Priority
    /// Whether this request shows previews while its image downloads (see
    /// ``ImagePipeline/Configuration/decodesPreviews``); `nil` follows the pipeline's setting. Not
    /// part of the cache key: a request that joins a load under way gets the previews that load
    /// makes, as its first request decided. Default: `nil`.
    public var decodesPreviews: Bool? = nil
    /// Replaces the URL in the cache key, for URLs that carry changing tokens.
    /// What to do with the colour profile the image declares: convert the pixels to sRGB through it
    /// (the default, as browsers show it) or keep them as stored, with the profile in
    /// ``ImageContainer/colorProfile`` and written back by the encoders. Kept images are cached
    /// apart from converted ones.
    public var colorProfileHandling: ColorProfileHandling = .convertToSRGB {
        didSet { keys = CacheKeys(self) }
    }
    public var cacheKeyOverride: String? {
        didSet { keys = CacheKeys(self) }
    }
    /// ``originalKey`` and ``processedKey``, built when the request is made and rebuilt whenever
    /// a field they depend on changes, so a cache lookup builds no string.
    private var keys = CacheKeys.empty

    /// A request for `url`.
    public init(
        url: URL, headers: [String: String] = [:], maximumPixelSize: Int? = nil,
        processors: [any ImageProcessing] = [], cachePolicy: CachePolicy = .useCache,
        priority: Priority = .normal, cacheKeyOverride: String? = nil,
        colorProfileHandling: ColorProfileHandling = .convertToSRGB
    ) {
        self.url = url
        self.headers = headers
        self.maximumPixelSize = maximumPixelSize
        self.processors = processors
        self.cachePolicy = cachePolicy
        self.priority = priority
        self.cacheKeyOverride = cacheKeyOverride
        self.colorProfileHandling = colorProfileHandling
        self.keys = CacheKeys(self)
    }

    /// A request for the URL and headers of `urlRequest`.
    public init(
        urlRequest: URLRequest, maximumPixelSize: Int? = nil, processors: [any ImageProcessing] = [],
        cachePolicy: CachePolicy = .useCache, priority: Priority = .normal
    ) {
        self.init(
            url: urlRequest.url ?? URL(string: "about:blank")!,
            headers: urlRequest.allHTTPHeaderFields ?? [:], maximumPixelSize: maximumPixelSize,
            processors: processors, cachePolicy: cachePolicy, priority: priority)
    }

    /// Key of the downloaded bytes: the URL (or ``cacheKeyOverride``), escaped so that it can never
    /// read as a processed key (see ``CacheKey``).
    /// Kept with the request: reading it builds nothing.
    public var originalKey: CacheKey { keys.original }

    /// Key of the final image: the original key, then the thumbnail and every processor's
    /// identifier, each length-prefixed after an unambiguous separator (see ``CacheKey``).
    /// Kept with the request: reading it builds nothing.
    public var processedKey: CacheKey { keys.processed }

    /// A request's two cache keys, built together.
    private struct CacheKeys: Sendable {
        var original: CacheKey
        var processed: CacheKey

        static let empty = CacheKeys(original: CacheKey(""), processed: CacheKey(""))

        private init(original: CacheKey, processed: CacheKey) {
            self.original = original
            self.processed = processed
        }

        init(_ request: ImageRequest) {
            original = CacheKey.original(request.cacheKeyOverride ?? request.url.absoluteString)
            var key = original
            var isFirst = true
            if let maximumPixelSize = request.maximumPixelSize {
                key.appendStep(ThumbnailProcessor(maximumPixelSize: maximumPixelSize).identifier, isFirst: true)
                isFirst = false
            }
            for processor in request.processors {
                key.appendStep(processor.identifier, isFirst: isFirst)
                isFirst = false
            }
            if request.colorProfileHandling == .keep {
                key.appendStep("colorProfile=keep", isFirst: isFirst)
            }
            processed = key
        }
    }

    /// Whether any transformation applies after decoding.
    public var isProcessed: Bool { maximumPixelSize != nil || !processors.isEmpty }

    /// The thumbnail's longer side: ``maximumPixelSize``, or a ``ThumbnailProcessor``'s when one
    /// comes first among ``processors``. The image is decoded for it (shrink-on-load).
    var thumbnailSize: Int? {
        maximumPixelSize ?? (processors.first as? ThumbnailProcessor)?.maximumPixelSize
    }

    /// The processors that run after the thumbnail (``thumbnailSize``) is made.
    var processorsAfterThumbnail: ArraySlice<any ImageProcessing> {
        maximumPixelSize == nil && processors.first is ThumbnailProcessor ? processors.dropFirst() : processors[...]
    }
}

extension ImageRequest {
    /// Which caches a request reads and writes, and whether it may go to the network.
    public struct CachePolicy: Sendable, Hashable {
        /// Read the memory cache.
        public var readsMemory: Bool
        /// Store the result in the memory cache.
        public var writesMemory: Bool
        /// Read the disk cache (and any extra cache layers).
        public var readsDisk: Bool
        /// Store the downloaded bytes (and processed variants, when asked) on disk.
        public var writesDisk: Bool
        /// Go to the network when the caches miss.
        public var loadsFromNetwork: Bool

        /// A cache policy reading and writing what each flag says.
        public init(
            readsMemory: Bool = true, writesMemory: Bool = true, readsDisk: Bool = true,
            writesDisk: Bool = true, loadsFromNetwork: Bool = true
        ) {
            self.readsMemory = readsMemory
            self.writesMemory = writesMemory
            self.readsDisk = readsDisk
            self.writesDisk = writesDisk
            self.loadsFromNetwork = loadsFromNetwork
        }

        /// Read and write every cache; load when they miss. The default.
        public static let useCache = CachePolicy()
        /// Skip the caches on the way in, download anew, and store the fresh result.
        public static let reloadIgnoringCache = CachePolicy(readsMemory: false, readsDisk: false)
        /// Offline: answer from the caches or fail with ``ImagePipeline/Error/notCached(_:)``.
        public static let returnCacheDataDontLoad = CachePolicy(loadsFromNetwork: false)
    }
}
