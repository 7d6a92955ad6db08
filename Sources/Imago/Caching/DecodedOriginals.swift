import Foundation

/// The pipeline's tier of decoded originals: what shrink-on-load made of a source (the DCT- or
/// scale-reduced pixels, colour handled, before any processing), kept so that the source's other
/// variants (the sizes of a `srcset`, other processor chains) are made from it without
/// downloading or decoding it again.
///
/// Entries are keyed by the original key, the colour handling and the reduction (1/8, 1/4, 1/2 or
/// full), so a request that needs more pixels than a small entry has is decoded at a larger scale
/// and that is kept too. Bounded by bytes (a ``MemoryCache``, least recently used out first), with
/// no entry over ``maximumEntryBytes``; an entry lives no longer than its source is fresh, is
/// never kept for a `no-store` source, and is dropped when the source's bytes change
/// (``Entry/fingerprint``). See ``ImagePipeline/Configuration/decodedOriginalsBytes``.
final class DecodedOriginals: Sendable {
    /// A source as decoded: its original key and colour handling.
    struct SourceKey: Hashable, Sendable {
        var original: CacheKey
        var handling: ColorProfileHandling
        /// The most frames of an animation decoded (``ImageRequest/maximumAnimationFrames``).
        var frames: Int?
        /// Whether the decode is of the source's embedded thumbnail (``ImageRequest/prefersEmbeddedThumbnail``).
        var embeddedThumbnail = false
        /// Whether the decode carries the source's metadata (`ImageRequest.readsMetadata`).
        var metadata = false
    }

    /// One decode of one source.
    struct Key: Hashable, Sendable {
        var source: SourceKey
        /// 1, 2, 4 or 8: each side divided by about it (what the decoder made of it).
        var reduction: Int
    }

    /// A decoded original with what it was made from.
    struct Entry: Sendable {
        /// The pixels (EXIF orientation applied), with ``ImageContainer/sourcePixelSize`` set.
        var container: ImageContainer
        /// When the source stops being fresh; `nil`: no expiry known.
        var expiresAt: Date?
        /// `false` when the source said `no-store`: never kept.
        var isStorable: Bool
        /// The source bytes' fingerprint (`LoadedData.fingerprint`).
        var fingerprint: String
        /// The source's encoded size, for ``ImageRequest/maximumSourceByteCount``.
        var encodedByteCount: Int
        /// The source's `Last-Modified`, when it sent one.
        var lastModified: Date? = nil

        /// The source's full size, after its EXIF orientation.
        var sourceSize: PixelSize { container.sourcePixelSize }

        /// The pixels' share of the source's resolution, across and down (1: full size).
        var scale: (x: Double, y: Double) {
            let pixels = container.pixelSize
            return (
                Double(pixels.width) / Double(max(1, sourceSize.width)), Double(pixels.height) / Double(max(1, sourceSize.height))
            )
        }

        /// Whether these pixels give every output pixel of a request needing `requiredScale` a
        /// source pixel.
        func covers(_ requiredScale: Double) -> Bool {
            let pixels = container.pixelSize
            let (x, y) = scale
            return min(x, y) >= requiredScale * (1 - 1e-9)
                || (pixels.width >= sourceSize.width && pixels.height >= sourceSize.height)
        }

        /// The tier's cost of the entry: its pixels (the rest is small and fixed).
        var cost: Int { container.cost + 256 }
    }

    /// The tier's budget in bytes.
    let byteLimit: Int
    /// The most bytes one entry may take (``ImagePipeline/Configuration/decodedOriginalsEntryFraction``).
    let maximumEntryBytes: Int
    private let entries: MemoryCache<Key, Entry>
    /// What the tier knows of each source: the reductions it has had stored (some may have been
    /// evicted since) and the fingerprint of its bytes as last loaded, so that a decode of older
    /// bytes that finishes late is never kept.
    private let known = Locked<[SourceKey: Known]>([:])

    /// One source's line in ``known``.
    private struct Known {
        var reductions: Set<Int> = []
        /// The fingerprint ``refresh(_:fingerprint:expiresAt:isStorable:)`` last saw.
        var fingerprint: String?
    }

    /// The reductions, smallest pixels first.
    static let order = [8, 4, 2, 1]

    /// A tier of at most `byteLimit` bytes of pixels (0: keeps nothing), no entry over
    /// `entryFraction` of it, whose index is pruned past `indexLimit` sources.
    init(byteLimit: Int, entryFraction: Double, indexLimit: Int = DecodedOriginals.maximumIndexedSources) {
        self.byteLimit = max(0, byteLimit)
        self.indexLimit = indexLimit
        let fraction = entryFraction.isFinite ? min(1, max(0, entryFraction)) : 1
        // Int(Double(Int.max)) would trap (the double rounds up to 2^63).
        maximumEntryBytes = fraction >= 1 ? self.byteLimit : Int(min(Double(self.byteLimit) * fraction, Double(Int.max / 2)))
        entries = MemoryCache(configuration: .init(costLimit: self.byteLimit, countLimit: 10_000))
    }

    /// Pixels held, in bytes, and entries.
    var totals: (bytes: Int, count: Int) { (entries.totalCost, entries.totalCount) }

    /// Sources in the index (``indexLimit`` at most, once pruned).
    var indexedSourceCount: Int { known.withLock { $0.count } }

    /// The smallest fresh entry of `source` whose pixels cover what `requiredScale(size)` needs of
    /// a source of that size, at `now`; with `fingerprint`, only an entry made from those bytes.
    func lookup(_ source: SourceKey, requiredScale: (PixelSize) -> Double, now: Date, fingerprint: String? = nil) -> Entry? {
        guard byteLimit > 0 else { return nil }
        for reduction in Self.order {
            guard let entry = entries.value(forKey: Key(source: source, reduction: reduction)) else { continue }
            if let fingerprint, entry.fingerprint != fingerprint { continue }
            if let expiresAt = entry.expiresAt, expiresAt <= now { continue }
            if entry.covers(requiredScale(entry.sourceSize)) { return entry }
        }
        return nil
    }

    /// The entry kept under `key`, fresh or not.
    func entry(for key: Key) -> Entry? {
        entries.value(forKey: key)
    }

    /// Keeps `entry` under `key` unless its source said `no-store`, it is over
    /// ``maximumEntryBytes``, or it was made from other bytes than the source's as last loaded (a
    /// decode that finished after a newer download); whether it was kept.
    @discardableResult
    func store(_ entry: Entry, for key: Key) -> Bool {
        guard entry.isStorable, entry.cost <= maximumEntryBytes else { return false }
        let count: Int? = known.withLock { known in
            if let current = known[key.source]?.fingerprint, current != entry.fingerprint { return nil }
            known[key.source, default: Known()].reductions.insert(key.reduction)
            known[key.source]?.fingerprint = entry.fingerprint
            // Stored under the lock, so a refresh to newer bytes cannot pass between the check and it.
            entries.store(entry, forKey: key, cost: entry.cost)
            return known.count
        }
        guard let count else { return false }
        if count > indexLimit { pruneIndex() }
        return true
    }

    /// What the source's bytes are now (fetched or revalidated): entries made from other bytes, or
    /// of a source that now says `no-store`, are dropped; entries from the same bytes take the new
    /// expiry (they were revalidated with them). Each source loaded has its line in the index
    /// (pruned past ``indexLimit``); a tier that keeps nothing (``byteLimit`` 0, apps' default)
    /// indexes nothing: its lines would only pile up for the life of the pipeline.
    func refresh(_ source: SourceKey, fingerprint: String, expiresAt: Date?, isStorable: Bool) {
        guard byteLimit > 0 else { return }
        let (reductions, count) = known.withLock { known in
            known[source, default: Known()].fingerprint = fingerprint
            return (known[source]?.reductions ?? [], known.count)
        }
        if count > indexLimit { pruneIndex() }
        for reduction in reductions {
            let key = Key(source: source, reduction: reduction)
            guard var entry = entries.value(forKey: key) else { continue }
            if entry.fingerprint != fingerprint || !isStorable {
                entries.removeValue(forKey: key)
            } else if entry.expiresAt != expiresAt {
                entry.expiresAt = expiresAt
                entries.store(entry, forKey: key, cost: entry.cost)
            }
        }
        if !isStorable { known.withLock { $0[source]?.reductions = [] } }
    }

    /// Drops every entry made from the original under `original` (every colour handling and
    /// reduction), as the caches drop the original itself.
    func remove(original: CacheKey) {
        let removed = known.withLock { known in
            let sources = known.keys.filter { $0.original == original }
            return sources.map { ($0, known.removeValue(forKey: $0)?.reductions ?? []) }
        }
        for (source, reductions) in removed {
            for reduction in reductions { entries.removeValue(forKey: Key(source: source, reduction: reduction)) }
        }
    }

    /// Drops every entry.
    func removeAll() {
        known.withLock { known in
            known.removeAll()
            entries.removeAll()
        }
    }

    /// Sources indexed before the index is pruned of sources whose entries were all evicted.
    static let maximumIndexedSources = 20_000
    /// ``maximumIndexedSources``, or what a test sets.
    let indexLimit: Int

    private func pruneIndex() {
        let snapshot = known.withLock { $0 }
        let gone = snapshot.filter { source, line in
            !line.reductions.contains { entries.contains(Key(source: source, reduction: $0)) }
        }.keys
        known.withLock { known in
            for source in gone { known[source] = nil }
        }
    }
}
