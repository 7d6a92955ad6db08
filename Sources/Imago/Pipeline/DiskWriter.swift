import Foundation
import Logging
import Synchronization

/// The pipeline's one writer to its disk cache: every store, refresh and removal the pipeline
/// makes goes through here, one call site per kind. Writes run in the background, off the
/// response path, bounded in count and bytes (``PendingDiskWrites``); removals run at once, and
/// overtake the writes of their entry still pending.
///
/// When bytes are stored (nothing at all for a request whose cache policy does not write the
/// disk, and nothing made from a download whose ``DiskStorage`` forbids it):
/// - **original bytes from the network**, once per download, by the data stage as soon as the
///   download is accepted and their header has proved them an image (``storeOriginal(_:for:)``, called
///   from one place: `ImagePipeline.fetchData`). Every caller of the download (images of any size,
///   ``ImagePipeline/data(for:)``, prefetching) shares that one write. Bytes that then fail to
///   decode are removed by the decode stage (``removeOriginal(_:for:)``), which cancels their write
///   if it is still pending: bytes that failed to decode are never kept;
/// - **original bytes a cache layer held**, copied to disk as they are;
/// - **a 304's refresh** of the stale original: the same bytes, the lifetime and validators the
///   304's headers give (RFC 9111 §4.3.4: they update the stored ones). A 304 that says `no-store`
///   removes the stored copy, and the request's processed variant, instead;
/// - **a processed variant**, when ``ImagePipeline/Configuration/storesProcessedImagesOnDisk`` and the
///   image is still: encoded, stamped with its original's fingerprint, expiring with its original.
///
/// What is removed: original bytes that do not decode (downloaded, or on disk after a decoder
/// upgrade or a lowered limit: the next request downloads them again), a processed variant that
/// no longer decodes or whose original now forbids storing, and what
/// ``ImagePipeline/Cache/remove(_:)`` and ``ImagePipeline/Cache/removeAll()`` are asked to forget.
final class DiskWriter: Sendable {
    /// Where the bytes go; without one, every call does nothing.
    let diskCache: DiskCache?
    private let storesProcessedImages: Bool
    /// The decoders whose formats count as images when a header is checked.
    private let decoders: ImageDecoderRegistry
    private let limits: PendingDiskWrites.Limits
    private let logger: Logger
    private let redactsURLs: Bool
    private let pending = Locked(PendingDiskWrites())
    private let nextID = Atomic<UInt64>(0)

    /// The metadata name under which a processed variant records its original's fingerprint.
    static let originalFingerprintKey = "imago-original"

    init(configuration: ImagePipeline.Configuration) {
        diskCache = configuration.diskCache
        storesProcessedImages = configuration.storesProcessedImagesOnDisk
        decoders = configuration.decoders
        limits = PendingDiskWrites.Limits(
            count: configuration.maximumPendingDiskWrites, bytes: configuration.maximumPendingDiskWriteBytes)
        logger = configuration.logger
        redactsURLs = configuration.redactsURLs
    }

    // MARK: - Originals

    /// Stores downloaded bytes whose header is an image's, with the validators and lifetime their
    /// ``DiskStorage`` allows. Called once per download, by the data stage, before any decode:
    /// the decode stage removes them again if they fail to decode (``removeOriginal(_:for:)``).
    /// Bytes from a cache (``ImageResponse/Source/disk``) are not stored again.
    func storeOriginal(_ loaded: ImagePipeline.LoadedData, for request: ImageRequest) {
        guard writesOriginal(loaded, for: request), let diskCache, isImage(loaded.data) else { return }
        let storage = loaded.storage
        schedule(for: request, key: request.originalKey, bytes: loaded.data.count) {
            try diskCache.store(loaded.data, forKey: request.originalKey, metadata: storage.metadata, lifetime: storage.lifetime)
        }
    }

    /// Whether ``storeOriginal(_:for:)`` writes `loaded` for `request` (its header aside).
    private func writesOriginal(_ loaded: ImagePipeline.LoadedData, for request: ImageRequest) -> Bool {
        loaded.source == .network && request.cachePolicy.writesDisk && diskCache != nil && !loaded.storage.isForbidden
    }

    /// Whether `data` starts as an image does: a header Imago reads and finds whole, or, for a
    /// format whose header it does not read (a registered decoder's), a signature that decoder
    /// recognises; the decode that follows judges the rest.
    private func isImage(_ data: Data) -> Bool {
        if ImageHeader.probe(data) != nil { return true }
        guard let format = decoders.sniff(data) else { return false }
        return !Self.formatsWithHeaders.contains(format) && decoders.canDecode(format)
    }

    /// The formats whose header ``ImageHeader/probe(_:)`` reads.
    private static let formatsWithHeaders: [ImageFormat] = [.jpeg, .png, .gif, .webp, .heif, .avif, .jxl]

    /// Copies bytes a cache layer held to disk, with the disk cache's default lifetime.
    func storeFromCacheLayer(_ data: Data, for request: ImageRequest) {
        guard request.cachePolicy.writesDisk, let diskCache else { return }
        schedule(for: request, key: request.originalKey, bytes: data.count) {
            try diskCache.store(data, forKey: request.originalKey)
        }
    }

    /// A 304 said the stale copy `entry` is still good: gives it the response's validators and
    /// lifetime, or removes it (with the request's processed variant) when the 304 forbids storing.
    func refresh(_ entry: DiskCache.Entry, for request: ImageRequest, storage: DiskStorage) {
        if storage.isForbidden {
            // Whatever the request's cache policy: the server said this must not stay on disk.
            remove(request.processedKey)
            remove(request.originalKey)
            return
        }
        guard request.cachePolicy.writesDisk, let diskCache else { return }
        let metadata = entry.metadata.merging(storage.metadata) { _, new in new }
        schedule(for: request, key: request.originalKey, bytes: entry.data.count) {
            try diskCache.refresh(forKey: request.originalKey, metadata: metadata, lifetime: storage.lifetime)
        }
    }

    /// The original bytes `loaded` of `request` failed to decode: removes them from disk, and
    /// cancels their write if it is still pending. Bytes read from disk no longer decode (a
    /// decoder upgrade, a limit lowered), so the next request downloads them again; downloaded
    /// bytes were stored by the data stage before their decode. A download that was never
    /// written leaves the disk alone.
    func removeOriginal(_ loaded: ImagePipeline.LoadedData, for request: ImageRequest) {
        guard loaded.source == .disk || writesOriginal(loaded, for: request) else { return }
        remove(request.originalKey)
    }

    // MARK: - Processed variants

    /// Whether processed variants are read from and written to disk for `request`.
    func keepsProcessedImages(for request: ImageRequest) -> Bool {
        // A variant re-encoded for the disk would lose the source's metadata.
        storesProcessedImages && request.isProcessed && diskCache != nil && !request.readsMetadata
    }

    /// Stores a processed variant made from `original` (JPEG when opaque, with its gain map if it has
    /// one; PNG otherwise), stamped with the original's fingerprint so that a changed original
    /// invalidates it, and expiring with the original; removes the stored variant instead when the
    /// original forbids storing. Its pixels are sRGB or, for a request that kept the colour profile, carry that profile.
    func storeProcessed(_ container: ImageContainer, for request: ImageRequest, original: ImagePipeline.LoadedData) {
        guard keepsProcessedImages(for: request), !container.isAnimated, request.cachePolicy.writesDisk,
            let diskCache
        else { return }
        if original.storage.isForbidden {
            remove(request.processedKey)
            return
        }
        let metadata = [Self.originalFingerprintKey: original.fingerprint]
        let expiry = original.expiry
        schedule(for: request, key: request.processedKey, bytes: container.cost) {
            // JPEG keeps a gain map (and the profile the pixels kept), as `encoded(as:)` writes it.
            let encoded = try container.encoded(as: container.isOpaque ? .jpeg : .png)
            try diskCache.store(encoded, forKey: request.processedKey, metadata: metadata, expiry: expiry)
        }
    }

    /// Stores an expired variant `entry` again, unchanged, with its revalidated original's expiry.
    func restoreProcessed(_ entry: DiskCache.Entry, for request: ImageRequest, original: ImagePipeline.LoadedData) {
        guard request.cachePolicy.writesDisk, let diskCache else { return }
        let expiry = original.expiry
        schedule(for: request, key: request.processedKey, bytes: entry.data.count) {
            try diskCache.store(entry.data, forKey: request.processedKey, metadata: entry.metadata, expiry: expiry)
        }
    }

    /// Removes the processed variant of `request`: it no longer decodes.
    func removeProcessed(for request: ImageRequest) {
        remove(request.processedKey)
    }

    // MARK: - Forgetting

    /// Forgets `request` on disk: its processed variant and its original bytes
    /// (``ImagePipeline/Cache/remove(_:)``).
    func removeEntries(for request: ImageRequest) {
        remove(request.processedKey)
        remove(request.originalKey)
    }

    /// Empties the disk cache, pending writes included (``ImagePipeline/Cache/removeAll()``).
    func removeAll() {
        guard let diskCache else { return }
        pending.withLock { $0.revokeAll() }
        diskCache.removeAll()
    }

    /// Removes the entry `key` now, and overtakes its writes still pending (see ``PendingDiskWrites``).
    private func remove(_ key: CacheKey) {
        guard let diskCache else { return }
        pending.withLock { $0.revoke(key) }
        diskCache.remove(forKey: key)
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
    /// - Parameter key: the entry written, so that a removal of it overtakes the write.
    private func schedule(
        for request: ImageRequest, key: CacheKey, bytes: Int, _ write: @escaping @Sendable () throws -> Void
    ) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let logger = self.logger
        let shownURL = request.url.description(redacting: redactsURLs)
        let limits = self.limits
        let admission = pending.withLock { writes -> PendingDiskWrites.Admission in
            let admission = writes.admit(id, key: key, bytes: bytes, limits: limits)
            guard admission == .admitted else { return admission }
            // The task holds the writer until it ends, so a write outlives a released pipeline.
            writes.start(id, Task.detached(priority: .utility) { [self] in
                do {
                    if pending.withLock({ $0.begin(id) }) { try write() }
                } catch let error as DiskCache.Error {
                    // The disk cache logs file-system faults itself, once per cause.
                    logger.debug("Could not store \(shownURL) on disk: \(error)")
                } catch {
                    logger.warning("Could not store \(shownURL) on disk: \(error)")
                }
                // A removal that came while it wrote: what it wrote goes too.
                if let removed = pending.withLock({ $0.finish(id) }) { diskCache?.remove(forKey: removed) }
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
