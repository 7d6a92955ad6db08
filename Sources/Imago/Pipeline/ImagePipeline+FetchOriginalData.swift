import Foundation
import Metrics

extension ImagePipeline {
    /// The original bytes for `request`: joins the download or disk read under way for its
    /// original key, or starts one.
    func loadData(
        for request: ImageRequest, progress: (@Sendable (ImageTask.Progress) -> Void)?,
        updates: (@Sendable (WorkUpdate) -> Void)? = nil,
        onWaiting: (InFlightTable<WorkKey, LoadedData>.WaiterHandle) -> Void
    ) async throws(Error) -> LoadedData {
        try await dataWork.value(
            for: WorkKey(request.originalKey, request.cachePolicy, byteLimit: request.maximumSourceByteCount), priority: request.priority,
            cancellation: .cancelled(request.url), progress: progress, updates: updates, onWaiting: onWaiting,
            runsInCaller: downloadStarter != nil
        ) { context throws(Error) in
            try await self.fetchData(for: request, context: context)
        }
    }

    /// A stale disk entry served as it is.
    private static func loaded(_ stale: DiskCache.Entry, timing: ImageResponse.Timing) -> LoadedData {
        LoadedData(
            data: stale.data, source: .disk, timing: timing, expiry: .date(stale.expiresAt),
            lastModified: HTTPCacheHeaders(metadata: stale.metadata).lastModifiedDate)
    }

    /// Disk, then cache layers, then the network (waiting for connectivity, queued by priority,
    /// retried by policy, revalidated when a stale copy has validators); downloaded bytes are
    /// stored on disk here, once, for every caller of the download (see ``DiskWriter``).
    private func fetchData(
        for request: ImageRequest, context: InFlightTable<WorkKey, LoadedData>.Context
    ) async throws(Error) -> LoadedData {
        var timing = ImageResponse.Timing()
        let clock = ContinuousClock()
        var stale: DiskCache.Entry?
        let hasLocalTiers = configuration.diskCache != nil || !configuration.cacheLayers.isEmpty
        if request.cachePolicy.readsDisk, hasLocalTiers {
            let start = clock.now
            let entry = configuration.diskCache?.entry(forKey: request.originalKey, allowExpired: true)
            if let entry, !entry.isExpired || configuration.servesExpiredEntries {
                timing.diskRead = clock.now - start
                metrics.diskHits.increment()
                return LoadedData(
                    data: entry.data, source: .disk, timing: timing, expiry: .date(entry.expiresAt),
                    lastModified: HTTPCacheHeaders(metadata: entry.metadata).lastModifiedDate)
            }
            if configuration.diskCache != nil { metrics.diskMisses.increment() }
            stale = entry
            let layered = await readCacheLayers(for: request)
            timing.diskRead = clock.now - start
            if let layered { return LoadedData(data: layered, source: .disk, timing: timing) }
        }
        guard request.cachePolicy.loadsFromNetwork else {
            if let stale { return Self.loaded(stale, timing: timing) }
            throw .notCached(request.url)
        }
        if let limit = configuration.waitsForConnectivity,
            !(await configuration.connectivity.waitUntilReachable(for: limit, clock: configuration.clock))
        {
            if Task.isCancelled { throw .cancelled(request.url) }
            if let stale { return Self.loaded(stale, timing: timing) }
            throw .offline(request.url)
        }
        let loaded = try await Downloader(pipeline: self, request: request, stale: stale, context: context).run(timing: timing)
        // The one store of original bytes: before any decode, which removes them if it fails.
        diskWriter.storeOriginal(loaded, for: request)
        return loaded
    }

    /// Asks the extra cache layers in order; copies a hit into the disk cache and earlier layers.
    private func readCacheLayers(for request: ImageRequest) async -> Data? {
        let layers = configuration.cacheLayers
        for (index, layer) in layers.enumerated() {
            guard let data = await layer.data(forKey: request.originalKey) else { continue }
            if request.cachePolicy.writesDisk {
                for earlier in layers[..<index] where earlier.isWritable {
                    await earlier.store(data, forKey: request.originalKey)
                }
                diskWriter.storeFromCacheLayer(data, for: request)
            }
            configuration.logger.debug("Cache layer \(layer.name) had \(configuration.logged(request.url))")
            return data
        }
        return nil
    }
}
