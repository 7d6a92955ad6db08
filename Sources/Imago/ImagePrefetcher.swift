import Synchronization

/// Warms the caches for images the user is about to see (the next rows of a list), at low
/// priority, and can be cancelled as a whole when they scroll away.
///
/// Prefetches share work with ordinary requests: a prefetch that is under way when a view asks for
/// the same image is joined, and the view's higher priority lifts the shared download.
public final class ImagePrefetcher: Sendable {
    /// Where prefetched images go.
    public enum Destination: Sendable {
        /// Decoded into the memory cache (and the bytes onto the disk): instant display later.
        case memoryCache
        /// Only the bytes onto the disk cache: no decoding now, no memory used.
        case diskCache
    }

    /// The pipeline whose caches are warmed.
    public let pipeline: ImagePipeline
    /// Where prefetched images go. Default: `.memoryCache`.
    public let destination: Destination
    /// The priority prefetches run at. Default: `.low`.
    public let priority: ImageRequest.Priority

    private let tasks = Mutex<[CacheKey: Task<Void, Never>]>([:])

    public init(pipeline: ImagePipeline, destination: Destination = .memoryCache, priority: ImageRequest.Priority = .low) {
        self.pipeline = pipeline
        self.destination = destination
        self.priority = priority
    }

    deinit { stopPrefetching() }

    /// Number of prefetches not yet finished.
    public var pendingCount: Int { tasks.withLock { $0.count } }

    /// Starts prefetching each request not already cached or under way.
    public func startPrefetching(with requests: [ImageRequest]) {
        for original in requests {
            var request = original
            request.priority = priority
            let key = request.processedKey
            // `contains`, not a lookup: a prefetch check must not refresh recency or count as a miss.
            if destination == .memoryCache, request.cachePolicy.readsMemory,
                pipeline.memoryCache?.contains(key) == true
            {
                continue
            }
            let prefetch = request
            tasks.withLock { tasks in
                guard tasks[key] == nil else { return }
                tasks[key] = Task.detached(priority: priority.taskPriority) { [pipeline, destination, weak self] in
                    switch destination {
                    case .memoryCache: _ = try? await pipeline.image(for: prefetch)
                    case .diskCache: _ = try? await pipeline.data(for: prefetch)
                    }
                    _ = self?.tasks.withLock { $0.removeValue(forKey: key) }
                }
            }
        }
    }

    /// Cancels the prefetches of these requests (other callers of the same images are unaffected).
    public func stopPrefetching(with requests: [ImageRequest]) {
        let cancelled = tasks.withLock { tasks in requests.compactMap { tasks.removeValue(forKey: $0.processedKey) } }
        for task in cancelled { task.cancel() }
    }

    /// Cancels every prefetch.
    public func stopPrefetching() {
        let cancelled = tasks.withLock { tasks in
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        for task in cancelled { task.cancel() }
    }

    /// Waits until every prefetch started so far has ended (finished or cancelled).
    public func waitUntilFinished() async {
        while true {
            let pending = tasks.withLock { Array($0.values) }
            if pending.isEmpty { return }
            for task in pending { await task.value }
        }
    }
}
