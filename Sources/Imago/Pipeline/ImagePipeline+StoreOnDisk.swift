import Foundation
import Logging

extension ImagePipeline {
    /// Waits until every disk write started so far has finished. Writes run off the response
    /// path, so call this before a process exits if the next launch should find the images.
    public func waitForDiskWrites() async {
        while true {
            let pending = diskWrites.withLock { $0.tasks }
            if pending.isEmpty { return }
            for task in pending { await task.value }
        }
    }

    /// Stores downloaded bytes on disk, once per download, with the response's validators and
    /// lifetime, unless the server said `no-store`.
    func storeOriginal(_ loaded: LoadedData, for request: ImageRequest) {
        guard request.cachePolicy.writesDisk, let diskCache = configuration.diskCache, loaded.claimDiskWrite() else {
            return
        }
        var metadata: [String: String] = [:]
        var lifetime: Duration?
        if configuration.honoursHTTPCacheHeaders, let validators = loaded.validators {
            if validators.noStore { return }
            metadata = validators.metadata
            lifetime = validators.lifetime
        }
        scheduleDiskWrite(for: request, bytes: loaded.data.count) { [metadata, lifetime] in
            try diskCache.store(loaded.data, forKey: request.originalKey, metadata: metadata, lifetime: lifetime)
        }
    }

    /// The metadata name under which a processed variant records its original's fingerprint.
    static let originalFingerprintKey = "imago-original"

    /// Stores a processed variant on disk (JPEG when opaque, PNG otherwise) when configured to,
    /// under the original's HTTP caching: nothing when it said `no-store`, and the same expiry as
    /// the original, with the original's fingerprint so a changed original invalidates it. Its
    /// pixels are sRGB, or, for a request that kept the colour profile, carry that profile.
    func storeProcessed(_ container: ImageContainer, for request: ImageRequest, original: LoadedData) {
        guard configuration.storesProcessedImagesOnDisk, !container.isAnimated, request.cachePolicy.writesDisk,
            let diskCache = configuration.diskCache
        else { return }
        if configuration.honoursHTTPCacheHeaders, original.validators?.noStore == true {
            diskCache.remove(forKey: request.processedKey)
            return
        }
        let metadata = [Self.originalFingerprintKey: original.fingerprint]
        let expiry = original.expiry
        scheduleDiskWrite(for: request, bytes: container.cost) {
            let encoder: any ImageEncoding = container.isOpaque ? JPEGEncoder(quality: 90) : PNGEncoder()
            var encoded = try encoder.encode(container.bitmap())
            #if os(Linux)
            if let profile = container.pixelColorProfile { encoded = try profile.embedded(in: encoded, format: encoder.format) }
            #endif
            try diskCache.store(encoded, forKey: request.processedKey, metadata: metadata, expiry: expiry)
        }
    }

    /// Runs `write` in the background; a failure is logged, never surfaced to the caller.
    ///
    /// Writes are bounded: when ``Configuration/maximumPendingDiskWrites`` writes or
    /// ``Configuration/maximumPendingDiskWriteBytes`` bytes (what the pending writes keep alive)
    /// are already pending, this one is skipped and counted, so a slow disk never holds memory
    /// without bound and never blocks the response path.
    ///
    /// - Parameter bytes: the memory the write keeps alive until it runs (bytes, or pixels).
    func scheduleDiskWrite(for request: ImageRequest, bytes: Int, _ write: @escaping @Sendable () throws -> Void) {
        let id = nextWriteID.add(1, ordering: .relaxed).newValue
        let logger = configuration.logger
        let shownURL = configuration.logged(request.url)
        let limits = PendingDiskWrites.Limits(
            count: configuration.maximumPendingDiskWrites, bytes: configuration.maximumPendingDiskWriteBytes)
        let admission = diskWrites.withLock { writes -> PendingDiskWrites.Admission in
            let admission = writes.admit(id, bytes: bytes, limits: limits)
            guard admission == .admitted else { return admission }
            writes.start(id, Task.detached(priority: .utility) { [weak self] in
                do {
                    try write()
                } catch let error as DiskCache.Error {
                    // The disk cache logs file-system faults itself, once per cause.
                    logger.debug("Could not store \(shownURL) on disk: \(error)")
                } catch {
                    logger.warning("Could not store \(shownURL) on disk: \(error)")
                }
                self?.diskWrites.withLock { $0.finish(id) }
            })
            return admission
        }
        switch admission {
        case .admitted: break
        case .skipped(let isFirst):
            let message: Logger.Message =
                "Skipped storing \(shownURL) on disk: \(limits.count) writes or \(limits.bytes) bytes already wait."
            if isFirst {
                logger.warning("\(message) The disk is slower than the downloads; later skips are logged at debug level.")
            } else {
                logger.debug("\(message)")
            }
        }
    }

    /// Disk writes skipped because too many were pending.
    var skippedDiskWriteCount: Int { diskWrites.withLock { $0.skippedCount } }
}
