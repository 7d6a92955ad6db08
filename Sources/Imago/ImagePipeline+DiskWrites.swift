import Foundation

extension ImagePipeline {
    /// Waits until every disk write started so far has finished. Writes run off the response
    /// path, so call this before a process exits if the next launch should find the images.
    public func waitForDiskWrites() async {
        while true {
            let pending = diskWrites.withLock { Array($0.values) }
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
        scheduleDiskWrite(for: request) { [metadata, lifetime] in
            try diskCache.store(loaded.data, forKey: request.originalKey, metadata: metadata, lifetime: lifetime)
        }
    }

    /// Stores a processed variant on disk (JPEG when opaque, PNG otherwise) when configured to.
    func storeProcessed(_ container: ImageContainer, for request: ImageRequest) {
        guard configuration.storesProcessedImagesOnDisk, !container.isAnimated, request.cachePolicy.writesDisk,
            let diskCache = configuration.diskCache
        else { return }
        scheduleDiskWrite(for: request) {
            let encoder: any ImageEncoding = container.isOpaque ? JPEGEncoder(quality: 90) : PNGEncoder()
            try diskCache.store(try encoder.encode(container.bitmap()), forKey: request.processedKey)
        }
    }

    /// Runs `write` in the background; a failure is logged, never surfaced to the caller.
    func scheduleDiskWrite(for request: ImageRequest, _ write: @escaping @Sendable () throws -> Void) {
        let id = nextWriteID.add(1, ordering: .relaxed).newValue
        let logger = configuration.logger
        let shownURL = configuration.logged(request.url)
        diskWrites.withLock { writes in
            writes[id] = Task.detached(priority: .utility) { [weak self] in
                do {
                    try write()
                } catch {
                    logger.warning("Could not store \(shownURL) on disk: \(error)")
                }
                _ = self?.diskWrites.withLock { $0.removeValue(forKey: id) }
            }
        }
    }
}

extension ImageContainer {
    /// Whether every pixel is opaque, as far as the image says.
    var isOpaque: Bool {
        #if canImport(UIKit) || canImport(AppKit)
        format == .jpeg
        #else
        image.pixels.alphaMode == .opaque
        #endif
    }
}
