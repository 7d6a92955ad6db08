import Foundation
import Logging
import Synchronization

/// The pipeline's one writer to its disk cache: every store, refresh and removal the pipeline
/// makes goes through here. Writes run in the background, off the response path, bounded in count
/// and bytes (``PendingDiskWrites``); removals run at once.
///
/// When bytes are stored (nothing at all for a request whose cache policy does not write the
/// disk, and nothing made from a download whose ``DiskStorage`` forbids it):
/// - **original bytes from the network**, once per download: after they decoded into an image, or,
///   for ``ImagePipeline/data(for:)`` and disk prefetching, after their header proved them an image
///   (bytes that fail either check are never stored);
/// - **original bytes a cache layer held**, copied to disk as they are;
/// - **a 304's refresh** of the stale original: the same bytes, a new lifetime and validators (the
///   304's own `no-store` is not consulted yet: the stale copy was stored under a response that
///   allowed it);
/// - **a processed variant**, when ``ImagePipeline/Configuration/storesProcessedImagesOnDisk`` and the
///   image is still: encoded, stamped with its original's fingerprint, expiring with its original.
///
/// What is removed: bytes on disk that no longer decode (so the next request downloads them
/// again), and a processed variant whose original now forbids storing.
final class DiskWriter: Sendable {
    /// Where the bytes go; without one, every call does nothing.
    let diskCache: DiskCache?
    private let storesProcessedImages: Bool
    private let limits: PendingDiskWrites.Limits
    private let logger: Logger
    private let redactsURLs: Bool
    private let pending = Mutex(PendingDiskWrites())
    private let nextID = Atomic<UInt64>(0)

    /// The metadata name under which a processed variant records its original's fingerprint.
    static let originalFingerprintKey = "imago-original"

    init(configuration: ImagePipeline.Configuration) {
        diskCache = configuration.diskCache
        storesProcessedImages = configuration.storesProcessedImagesOnDisk
        limits = PendingDiskWrites.Limits(
            count: configuration.maximumPendingDiskWrites, bytes: configuration.maximumPendingDiskWriteBytes)
        logger = configuration.logger
        redactsURLs = configuration.redactsURLs
    }

    // MARK: - Originals

    /// Stores downloaded bytes that decoded, or whose header proved them an image: once per
    /// download, with the validators and lifetime their ``DiskStorage`` allows. Bytes that were
    /// not decoded (`data(for:)`, prefetching) pass `checkingHeader: true`: they are stored only
    /// when their header is an image's, read only when everything else allows the write.
    func storeOriginal(_ loaded: ImagePipeline.LoadedData, for request: ImageRequest, checkingHeader: Bool = false) {
        guard loaded.source == .network, request.cachePolicy.writesDisk, let diskCache, !loaded.storage.isForbidden,
            !checkingHeader || ImageHeader.probe(loaded.data) != nil, loaded.claimDiskWrite()
        else { return }
        let storage = loaded.storage
        schedule(for: request, bytes: loaded.data.count) {
            try diskCache.store(loaded.data, forKey: request.originalKey, metadata: storage.metadata, lifetime: storage.lifetime)
        }
    }

    /// Copies bytes a cache layer held to disk, with the disk cache's default lifetime.
    func storeFromCacheLayer(_ data: Data, for request: ImageRequest) {
        guard request.cachePolicy.writesDisk, let diskCache else { return }
        schedule(for: request, bytes: data.count) {
            try diskCache.store(data, forKey: request.originalKey)
        }
    }

    /// A 304 said the stale copy `entry` is still good: gives it the response's validators and lifetime.
    func refresh(_ entry: DiskCache.Entry, for request: ImageRequest, storage: DiskStorage) {
        guard request.cachePolicy.writesDisk, let diskCache else { return }
        let metadata = entry.metadata.merging(storage.metadata) { _, new in new }
        schedule(for: request, bytes: entry.data.count) {
            try diskCache.refresh(forKey: request.originalKey, metadata: metadata, lifetime: storage.lifetime)
        }
    }

    /// Removes the original bytes of `request`: they no longer decode (a decoder upgrade, a limit
    /// lowered), so the next request downloads them again.
    func removeOriginal(for request: ImageRequest) {
        diskCache?.remove(forKey: request.originalKey)
    }

    // MARK: - Processed variants

    /// Whether processed variants are read from and written to disk for `request`.
    func keepsProcessedImages(for request: ImageRequest) -> Bool {
        storesProcessedImages && request.isProcessed && diskCache != nil
    }

    /// Stores a processed variant made from `original` (JPEG when opaque, PNG otherwise), stamped
    /// with the original's fingerprint so that a changed original invalidates it, and expiring with
    /// the original; removes the stored variant instead when the original forbids storing. Its
    /// pixels are sRGB or, for a request that kept the colour profile, carry that profile.
    func storeProcessed(_ container: ImageContainer, for request: ImageRequest, original: ImagePipeline.LoadedData) {
        guard keepsProcessedImages(for: request), !container.isAnimated, request.cachePolicy.writesDisk,
            let diskCache
        else { return }
        if original.storage.isForbidden {
            diskCache.remove(forKey: request.processedKey)
            return
        }
        let metadata = [Self.originalFingerprintKey: original.fingerprint]
        let expiry = original.expiry
        schedule(for: request, bytes: container.cost) {
            let encoder: any ImageEncoding = container.isOpaque ? JPEGEncoder() : PNGEncoder()
            var encoded = try encoder.encode(container.bitmap())
            #if os(Linux)
            if let profile = container.pixelColorProfile { encoded = try profile.embedded(in: encoded, format: encoder.format) }
            #endif
            try diskCache.store(encoded, forKey: request.processedKey, metadata: metadata, expiry: expiry)
        }
    }

    /// Stores an expired variant `entry` again, unchanged, with its revalidated original's expiry.
    func restoreProcessed(_ entry: DiskCache.Entry, for request: ImageRequest, original: ImagePipeline.LoadedData) {
        guard request.cachePolicy.writesDisk, let diskCache else { return }
        let expiry = original.expiry
        schedule(for: request, bytes: entry.data.count) {
            try diskCache.store(entry.data, forKey: request.processedKey, metadata: entry.metadata, expiry: expiry)
        }
    }

    /// Removes the processed variant of `request`: it no longer decodes.
    func removeProcessed(for request: ImageRequest) {
        diskCache?.remove(forKey: request.processedKey)
    }

    // MARK: - The background writes

    /// Waits until every write started so far has finished.
    func waitForWrites() async {
        while true {
            let tasks = pending.withLock { $0.tasks }
            if tasks.isEmpty { return }
            for task in tasks { await task.value }
        }
    }

    /// Writes skipped because too many were pending.
    var skippedCount: Int { pending.withLock { $0.skippedCount } }

    /// Runs `write` in the background; a failure is logged, never surfaced to the caller.
    ///
    /// When ``ImagePipeline/Configuration/maximumPendingDiskWrites`` writes or
    /// ``ImagePipeline/Configuration/maximumPendingDiskWriteBytes`` bytes (what the pending writes
    /// keep alive) are already pending, this one is skipped and counted, so a slow disk never holds
    /// memory without bound and never blocks the response path.
    ///
    /// - Parameter bytes: the memory the write keeps alive until it runs (bytes, or pixels).
    private func schedule(for request: ImageRequest, bytes: Int, _ write: @escaping @Sendable () throws -> Void) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let logger = self.logger
        let shownURL = request.url.description(redacting: redactsURLs)
        let limits = self.limits
        let admission = pending.withLock { writes -> PendingDiskWrites.Admission in
            let admission = writes.admit(id, bytes: bytes, limits: limits)
            guard admission == .admitted else { return admission }
            // The task holds the writer until it ends, so a write outlives a released pipeline.
            writes.start(id, Task.detached(priority: .utility) { [self] in
                do {
                    try write()
                } catch let error as DiskCache.Error {
                    // The disk cache logs file-system faults itself, once per cause.
                    logger.debug("Could not store \(shownURL) on disk: \(error)")
                } catch {
                    logger.warning("Could not store \(shownURL) on disk: \(error)")
                }
                pending.withLock { $0.finish(id) }
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
}
