import Foundation
import Logging
import Synchronization

/// Loads images: memory cache, then disk cache (and any extra cache layers), then the network,
/// with one download and one decode for every group of identical requests.
///
/// ```swift
/// let pipeline = ImagePipeline()
/// let response = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 256))
/// ```
///
/// A memory hit is answered on the caller's thread under one lock, with no actor hop. Everything
/// else runs in shared work keyed by the request's cache key: a caller that cancels leaves alone,
/// and the download stops only when the last caller of that image has left.
public final class ImagePipeline: Sendable {
    /// What this pipeline is made of.
    public let configuration: Configuration

    /// Decoded (and processed) images under way, by processed key and cache policy.
    let imageWork = InFlightTable<WorkKey, ImageResponse>()
    /// Downloads and disk reads under way, by original key and cache policy.
    let dataWork = InFlightTable<WorkKey, LoadedData>()
    /// Downloads in priority order, at most `maximumConcurrentDownloads` at once.
    let scheduler: Scheduler
    /// Every write to and removal from the disk cache; see ``waitForDiskWrites()``.
    let diskWriter: DiskWriter
    let broadcaster = EventBroadcaster()
    let metrics: PipelineMetrics
    /// What shrink-on-load made of sources, for their other variants
    /// (``Configuration/decodedOriginalsBytes``).
    let decodedOriginals: DecodedOriginals
    /// Decodes of originals under way, by source and reduction, joined by requests that need the same.
    let originalDecodes = KeyedFlight<OriginalDecodeKey, Result<DecodedOriginals.Entry, Error>>()
    /// Bytes held by decodes under way (``Configuration/maximumDecodingBytes``).
    let decodeBudget: DecodeBudget
    /// Originals decoded since the pipeline was made.
    let decodeCounter = Atomic<Int>(0)

    /// ``Configuration/memoryCache``, kept apart so that a hit reads one stored reference.
    private let memory: MemoryCache<CacheKey, ImageContainer>?
    /// ``Configuration/dataLoader`` when its downloads are bound to no task (see
    /// ``DownloadStarting``), cast once: a cast to a protocol looks the conformance up each time.
    let downloadStarter: (any DownloadStarting)?

    /// A pipeline with its own caches, loader and queue, as `configuration` says.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.memory = configuration.memoryCache
        self.downloadStarter = configuration.dataLoader as? any DownloadStarting
        self.scheduler = Scheduler(maximumConcurrent: configuration.maximumConcurrentDownloads)
        self.metrics = PipelineMetrics(label: configuration.metricsLabel, factory: configuration.metricsFactory)
        self.diskWriter = DiskWriter(configuration: configuration)
        self.decodedOriginals = DecodedOriginals(
            byteLimit: configuration.decodedOriginalsBytes, entryFraction: configuration.decodedOriginalsEntryFraction)
        self.decodeBudget = DecodeBudget(budget: configuration.maximumDecodingBytes)
    }

    deinit { broadcaster.finish() }

    /// The memory cache, when there is one (package access: users read and write it through
    /// ``cache``, and may keep the ``Configuration/memoryCache`` they made).
    package var memoryCache: MemoryCache<CacheKey, ImageContainer>? { memory }
    /// The disk cache, when there is one.
    public var diskCache: DiskCache? { configuration.diskCache }

    // MARK: - Images

    /// Loads, decodes and processes the image for `request`.
    ///
    /// - Parameter request: the image to load, and how.
    /// - Parameter progress: told how the download advances, from any thread (never for cache hits).
    /// - Throws: ``ImagePipeline/Error``; `cancelled` when the calling task is cancelled.
    public func image(
        for request: ImageRequest, progress: (@Sendable (ImageTask.Progress) -> Void)? = nil
    ) async throws(Error) -> ImageResponse {
        try await image(for: request, progress: progress, preview: nil, onWaiting: { _ in })
    }

    /// Loads and decodes the image at `url`, as ``image(for:progress:)`` does for
    /// `ImageRequest(url: url)`.
    public func image(for url: URL) async throws(Error) -> ImageResponse {
        try await image(for: ImageRequest(url: url))
    }

    /// ``image(for:progress:)`` that also hands out the previews of the image (when it has any)
    /// and the caller's place among the waiters, so an ``ImageTask`` can change its priority.
    func image(
        for request: ImageRequest, progress: (@Sendable (ImageTask.Progress) -> Void)?,
        preview: (@Sendable (ImagePreview) -> Void)?,
        onWaiting: (InFlightTable<WorkKey, ImageResponse>.WaiterHandle) -> Void
    ) async throws(Error) -> ImageResponse {
        try validate(request)
        let start = ContinuousClock.now
        if let cached = cachedImage(for: request) {
            var timing = ImageResponse.Timing()
            timing.total = ContinuousClock.now - start
            broadcaster.send(.completed(request.url, source: .memory, timing: timing))
            return ImageResponse(container: cached, source: .memory, timing: timing)
        }
        broadcaster.send(.started(request.url, key: request.processedKey))
        var reporter: (@Sendable (ImageTask.Progress) -> Void)?
        if broadcaster.isActive || progress != nil {
            let broadcaster = self.broadcaster
            let url = request.url
            reporter = { update in
                progress?(update)
                broadcaster.send(.progress(url, update))
            }
        }
        var previews: (@Sendable (WorkUpdate) -> Void)?
        if let preview {
            previews = { update in
                if case .preview(let image) = update { preview(image) }
            }
        }
        do throws(Error) {
            var response = try await imageWork.value(
                for: WorkKey(
                    request.processedKey, request.cachePolicy, byteLimit: request.maximumSourceByteCount,
                    pixelLimit: request.maximumSourcePixelCount), priority: request.priority,
                cancellation: .cancelled(request.url), progress: reporter, updates: previews, onWaiting: onWaiting
            ) { context throws(Error) in
                // A job for this key that ended between the lookup above and this new one stored
                // its image first: one more lookup keeps that late caller from loading it again.
                if request.cachePolicy.readsMemory, let cached = self.memory?.value(forKey: request.processedKey) {
                    return ImageResponse(container: cached, source: .memory)
                }
                return try await self.makeImage(for: request, context: context)
            }
            response.timing.total = ContinuousClock.now - start
            broadcaster.send(.completed(request.url, source: response.source, timing: response.timing))
            return response
        } catch {
            if case .cancelled = error {
                broadcaster.send(.cancelled(request.url))
            } else {
                metrics.recordError(error)
                broadcaster.send(.failed(request.url, error))
            }
            throw error
        }
    }

    /// The image for `request` if the memory cache holds it, without any other work: what
    /// `cache[request]` reads, and the UI model's synchronous first look (package access).
    package func cachedImage(for request: ImageRequest) -> ImageContainer? {
        guard request.cachePolicy.readsMemory, let memory else { return nil }
        guard let cached = memory.value(forKey: request.processedKey) else {
            metrics.memoryMisses.increment()
            return nil
        }
        metrics.memoryHits.increment()
        return cached
    }

    /// A handle on loading `request`, for callers who want to cancel it, watch its progress or
    /// change its priority.
    public func imageTask(with request: ImageRequest) -> ImageTask {
        ImageTask(request: request, pipeline: self)
    }

    // MARK: - Data

    /// The original bytes of the image for `request`, from the disk cache (or a cache layer) or
    /// the network, with where they came from and their freshness: the one way to read original
    /// bytes. The memory cache holds decoded images only, so it is not consulted. A download under
    /// way for the same URL is joined; downloaded bytes are stored on disk when their header is a
    /// valid image's.
    ///
    /// A cache-only read is the same call with ``ImageRequest/CachePolicy/returnCacheDataDontLoad``:
    ///
    /// ```swift
    /// var request = ImageRequest(url: url)
    /// request.cachePolicy = .returnCacheDataDontLoad
    /// let cached = try? await pipeline.data(for: request).data  // nil when not on disk
    /// ```
    /// - Throws: what loading throws (``Error/notCached(_:)`` for a cache-only read that misses).
    public func data(for request: ImageRequest) async throws(Error) -> OriginalData {
        try validate(request)
        let loaded = try await loadData(for: request, progress: nil, onWaiting: { _ in })
        return originalData(loaded)
    }

    /// Waits until every disk write started so far has finished. Writes run off the response
    /// path, so call this before a process exits if the next launch should find the images.
    public func waitForDiskWrites() async {
        await diskWriter.waitForWrites()
    }

    // MARK: - Observation

    /// A stream of what the pipeline does from now on: every request's start, progress, and end.
    /// Each call makes a new, independent stream; it ends when the consumer stops iterating or
    /// the pipeline goes away. When more than `bufferingNewest` events wait, the oldest are dropped.
    public func events(bufferingNewest limit: Int = 1_000) -> AsyncStream<PipelineEvent> {
        broadcaster.subscribe(bufferingNewest: limit)
    }

    /// What the caches hold and what the network is doing, now.
    public func statistics() -> Statistics {
        let decoded = decodedOriginals.totals
        let decoding = decodeBudget.bytes
        return Statistics(
            memoryCost: configuration.memoryCache?.totalCost ?? 0,
            memoryCount: configuration.memoryCache?.totalCount ?? 0,
            disk: configuration.diskCache?.statistics(),
            activeDownloads: scheduler.activeCount, queuedDownloads: scheduler.queuedCount,
            decodedOriginalsCost: decoded.bytes, decodedOriginalsCount: decoded.count,
            decodingBytes: decoding.now, peakDecodingBytes: decoding.peak,
            decodeCount: decodeCounter.load(ordering: .relaxed))
    }

    /// A snapshot of ``ImagePipeline/statistics()``.
    public struct Statistics: Sendable, Hashable {
        /// Bytes of decoded images in the memory cache.
        public var memoryCost: Int
        /// Images in the memory cache.
        public var memoryCount: Int
        /// Entries and bytes on disk, when there is a disk cache.
        public var disk: DiskCache.Statistics?
        /// Downloads running now.
        public var activeDownloads: Int
        /// Downloads waiting for a slot.
        public var queuedDownloads: Int
        /// Bytes of pixels in the tier of decoded originals (``Configuration/decodedOriginalsBytes``).
        public var decodedOriginalsCost: Int
        /// Entries in the tier of decoded originals.
        public var decodedOriginalsCount: Int
        /// Bytes of pixels held by decodes under way, as estimated from their headers
        /// (``Configuration/maximumDecodingBytes``).
        public var decodingBytes: Int
        /// The most ``decodingBytes`` has been since the pipeline was made.
        public var peakDecodingBytes: Int
        /// Sources decoded since the pipeline was made (every decode of downloaded or cached
        /// original bytes, shared or not; not the processed variants read from disk).
        public var decodeCount: Int
    }

    private func validate(_ request: ImageRequest) throws(Error) {
        guard let scheme = request.url.scheme else { throw .unsupportedScheme(request.url) }
        // The common spellings first: this runs on the memory-hit path.
        let isHTTP = scheme == "https" || scheme == "http" || ["http", "https"].contains(scheme.lowercased())
        guard isHTTP || configuration.additionalSchemes.contains(scheme.lowercased()) else { throw .unsupportedScheme(request.url) }
    }
}

extension ImagePipeline {
    /// Identical requests share work only when they also ask the caches the same way.
    /// So do they only under the same source limits: a download or decode is shared only by
    /// requests whose ``ImageRequest/maximumSourceByteCount`` and
    /// ``ImageRequest/maximumSourcePixelCount`` agree, so no request is refused by another's limit
    /// or served past its own.
    struct WorkKey: Hashable, Sendable {
        let key: CacheKey
        let policy: ImageRequest.CachePolicy
        let byteLimit: Int?
        let pixelLimit: Int?

        init(_ key: CacheKey, _ policy: ImageRequest.CachePolicy, byteLimit: Int? = nil, pixelLimit: Int? = nil) {
            self.key = key
            self.policy = policy
            self.byteLimit = byteLimit
            self.pixelLimit = pixelLimit
        }
    }
}
