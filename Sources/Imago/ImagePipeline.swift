import Foundation
import Logging
import Synchronization

/// Loads images: memory cache, then disk cache, then the network, with one download and one
/// decode for every group of identical requests.
///
/// ```swift
/// let pipeline = ImagePipeline()
/// let response = try await pipeline.image(for: ImageRequest(url: url, thumbnailPixelSize: 256))
/// ```
///
/// A memory hit is answered on the caller's thread under one lock, with no actor hop. Everything
/// else runs in shared work keyed by the request's cache key: a caller that cancels leaves alone,
/// and the download stops only when the last caller of that image has left.
public final class ImagePipeline: Sendable {
    /// What this pipeline is made of.
    public let configuration: Configuration

    /// Decoded (and processed) images under way, by processed key and cache policy.
    private let imageWork = InFlightTable<WorkKey, ImageResponse>()
    /// Downloads and disk reads under way, by original key and cache policy.
    private let dataWork = InFlightTable<WorkKey, LoadedData>()
    /// Disk writes not yet finished; see ``waitForDiskWrites()``.
    private let diskWrites = Mutex<[UInt64: Task<Void, Never>]>([:])
    private let nextWriteID = Atomic<UInt64>(0)

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The memory cache, when there is one.
    public var memoryCache: MemoryCache<CacheKey, ImageContainer>? { configuration.memoryCache }
    /// The disk cache, when there is one.
    public var diskCache: DiskCache? { configuration.diskCache }

    // MARK: - Images

    /// Loads, decodes and processes the image for `request`.
    ///
    /// - Parameter progress: told how the download advances, from any thread (never for cache hits).
    /// - Throws: ``ImagePipeline/Error``; `cancelled` when the calling task is cancelled.
    public func image(
        for request: ImageRequest, progress: (@Sendable (DownloadProgress) -> Void)? = nil
    ) async throws(Error) -> ImageResponse {
        try validate(request)
        if let cached = cachedImage(for: request) {
            return ImageResponse(container: cached, source: .memory)
        }
        return try await imageWork.value(
            for: WorkKey(request.processedKey, request.cachePolicy), priority: request.priority,
            cancellation: .cancelled(request.url), progress: progress
        ) { context throws(Error) in
            try await self.loadImage(for: request, context: context)
        }
    }

    /// The image for `request` if the memory cache holds it, without any other work.
    public func cachedImage(for request: ImageRequest) -> ImageContainer? {
        guard request.cachePolicy.readsMemory else { return nil }
        return configuration.memoryCache?.value(forKey: request.processedKey)
    }

    /// A handle on loading `request`, for callers who want to cancel it or watch its progress.
    public func imageTask(with request: ImageRequest) -> ImageTask {
        ImageTask(request: request, pipeline: self)
    }

    // MARK: - Data

    /// The original bytes of the image for `request`, from the disk cache or the network, and
    /// where they came from. The memory cache holds decoded images only, so it is not consulted.
    ///
    /// Downloaded bytes are stored on disk when their header is a valid image's.
    public func data(for request: ImageRequest) async throws(Error) -> (Data, ImageResponse.Source) {
        try validate(request)
        let loaded = try await loadData(for: request, progress: nil)
        if loaded.source == .network, ImageHeader.probe(loaded.data) != nil {
            storeOriginal(loaded, for: request)
        }
        return (loaded.data, loaded.source)
    }

    // MARK: - Disk writes

    /// Waits until every disk write started so far has finished. Writes run off the response
    /// path, so call this before a process exits if the next launch should find the images.
    public func waitForDiskWrites() async {
        while true {
            let pending = diskWrites.withLock { Array($0.values) }
            if pending.isEmpty { return }
            for task in pending { await task.value }
        }
    }

    // MARK: - The work

    private func validate(_ request: ImageRequest) throws(Error) {
        let scheme = request.url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(request.url) }
    }

    private func loadImage(
        for request: ImageRequest, context: InFlightTable<WorkKey, ImageResponse>.Context
    ) async throws(Error) -> ImageResponse {
        if let cached = cachedImage(for: request) {  // stored while this work was queued
            return ImageResponse(container: cached, source: .memory)
        }
        let loaded = try await loadData(for: request, progress: context.report)
        try checkCancellation(request)
        let decoded = try decode(loaded.data, for: request)
        let processed = try process(decoded, for: request)
        try checkCancellation(request)
        if request.cachePolicy.writesMemory, let memoryCache = configuration.memoryCache {
            let pinned = configuration.pinnedPriority.map { request.priority >= $0 } ?? false
            memoryCache.store(processed, forKey: request.processedKey, cost: processed.cost, pinned: pinned)
        }
        if loaded.source == .network { storeOriginal(loaded, for: request) }
        return ImageResponse(container: processed, source: loaded.source, encodedByteCount: loaded.data.count)
    }

    private func loadData(
        for request: ImageRequest, progress: (@Sendable (DownloadProgress) -> Void)?
    ) async throws(Error) -> LoadedData {
        try await dataWork.value(
            for: WorkKey(request.originalKey, request.cachePolicy), priority: request.priority,
            cancellation: .cancelled(request.url), progress: progress
        ) { context throws(Error) in
            if request.cachePolicy.readsDisk, let diskCache = self.configuration.diskCache,
                let data = diskCache.data(forKey: request.originalKey)
            {
                return LoadedData(data: data, source: .disk)
            }
            guard request.cachePolicy.loadsFromNetwork else { throw .notCached(request.url) }
            let response = try await self.configuration.dataLoader.loadData(
                for: DataRequest(url: request.url, headers: request.headers), progress: context.report)
            return LoadedData(data: response.data, source: .network)
        }
    }

    private func decode(_ data: Data, for request: ImageRequest) throws(Error) -> ImageContainer {
        guard let format = ImageFormat.sniff(data) else {
            return try ImageDecoder.decode(data, url: request.url, limits: configuration.decodingLimits)
        }
        let context = DecodingContext(
            format: format, url: request.url, limits: configuration.decodingLimits,
            targetPixelSize: request.thumbnailPixelSize)
        return try configuration.decoder.decode(data, context: context)
    }

    private func process(_ container: ImageContainer, for request: ImageRequest) throws(Error) -> ImageContainer {
        var result = container
        if let size = request.thumbnailPixelSize {
            result = try ThumbnailProcessor(maximumPixelSize: size).process(result)
        }
        for processor in request.processors {
            result = try processor.process(result)
        }
        return result
    }

    /// Cancelled work writes nothing: check before every side effect.
    private func checkCancellation(_ request: ImageRequest) throws(Error) {
        if Task.isCancelled { throw .cancelled(request.url) }
    }

    /// Stores downloaded bytes on disk, once per download, off the response path.
    private func storeOriginal(_ loaded: LoadedData, for request: ImageRequest) {
        guard request.cachePolicy.writesDisk, let diskCache = configuration.diskCache,
            loaded.claimDiskWrite()
        else { return }
        let id = nextWriteID.add(1, ordering: .relaxed).newValue
        let logger = configuration.logger
        diskWrites.withLock { writes in
            writes[id] = Task.detached(priority: .utility) { [weak self] in
                do {
                    try diskCache.store(loaded.data, forKey: request.originalKey)
                } catch {
                    logger.warning("Could not store \(request.url) on disk: \(error)")
                }
                _ = self?.diskWrites.withLock { $0.removeValue(forKey: id) }
            }
        }
    }
}

extension ImagePipeline {
    /// Identical requests share work only when they also ask the caches the same way.
    struct WorkKey: Hashable, Sendable {
        let key: CacheKey
        let policy: ImageRequest.CachePolicy

        init(_ key: CacheKey, _ policy: ImageRequest.CachePolicy) {
            self.key = key
            self.policy = policy
        }
    }

    /// Bytes from the disk or the network, shared by every image made from them.
    final class LoadedData: Sendable {
        let data: Data
        let source: ImageResponse.Source
        private let diskWriteClaimed = Atomic<Bool>(false)

        init(data: Data, source: ImageResponse.Source) {
            self.data = data
            self.source = source
        }

        /// True for the first caller only: several images decoded from one download (different
        /// thumbnails, say) store the bytes once.
        func claimDiskWrite() -> Bool {
            !diskWriteClaimed.exchange(true, ordering: .acquiringAndReleasing)
        }
    }
}

extension ImageContainer {
    /// Bytes of decoded pixels held: the memory cache's cost.
    public var cost: Int {
        let size = pixelSize
        let framePixels = frames.count > 1 ? frames.count : 1
        return size.width * size.height * Bitmap.bytesPerPixel * framePixels
    }
}
