
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

    /// One prefetch under way; its number tells it apart from a later prefetch of the same key.
    private struct Prefetch {
        let id: UInt64
        let task: Task<Void, Never>
    }

    private struct State {
        var prefetches: [CacheKey: Prefetch] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// A prefetcher that loads through `pipeline` into `destination` at `priority`.
    public init(pipeline: ImagePipeline, destination: Destination = .memoryCache, priority: ImageRequest.Priority = .low) {
        self.pipeline = pipeline
        self.destination = destination
        self.priority = priority
    }

    deinit { stopPrefetching() }

    /// Number of prefetches not yet finished.
    public var pendingCount: Int { state.withLock { $0.prefetches.count } }

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
            state.withLock { state in
                guard state.prefetches[key] == nil else { return }
                state.nextID += 1
                let id = state.nextID
                let task = Task.detached(priority: priority.taskPriority) { [pipeline, destination, weak self] in
                    switch destination {
                    case .memoryCache: _ = try? await pipeline.image(for: prefetch)
                    case .diskCache: _ = try? await pipeline.data(for: prefetch)
                    }
                    self?.finish(key, id: id)
                }
                state.prefetches[key] = Prefetch(id: id, task: task)
            }
        }
    }

    /// Forgets a prefetch that has ended, unless a newer prefetch of the same key replaced it
    /// (after a stop and a start): that one must stay cancellable.
    private func finish(_ key: CacheKey, id: UInt64) {
        state.withLock { state in
            if state.prefetches[key]?.id == id { state.prefetches[key] = nil }
        }
    }

    /// Cancels the prefetches of these requests (other callers of the same images are unaffected).
    public func stopPrefetching(with requests: [ImageRequest]) {
        let cancelled = state.withLock { state in
            requests.compactMap { state.prefetches.removeValue(forKey: $0.processedKey) }
        }
        for prefetch in cancelled { prefetch.task.cancel() }
    }

    /// Cancels every prefetch.
    public func stopPrefetching() {
        let cancelled = state.withLock { state in
            defer { state.prefetches.removeAll() }
            return Array(state.prefetches.values)
        }
        for prefetch in cancelled { prefetch.task.cancel() }
    }

    /// Waits until every prefetch started so far has ended (finished or cancelled).
    public func waitUntilFinished() async {
        while true {
            let pending = state.withLock { $0.prefetches.values.map(\.task) }
            if pending.isEmpty { return }
            for task in pending { await task.value }
        }
    }
}
