import Foundation
import Synchronization

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
    /// The reductions each source has had stored (some may have been evicted since).
    private let reductions = Mutex<[SourceKey: Set<Int>]>([:])

    /// The reductions, smallest pixels first.
    static let order = [8, 4, 2, 1]

    /// A tier of at most `byteLimit` bytes of pixels (0: keeps nothing), no entry over
    /// `entryFraction` of it.
    init(byteLimit: Int, entryFraction: Double) {
        self.byteLimit = max(0, byteLimit)
        let fraction = entryFraction.isFinite ? min(1, max(0, entryFraction)) : 1
        maximumEntryBytes = Int(Double(self.byteLimit) * fraction)
        entries = MemoryCache(configuration: .init(costLimit: self.byteLimit, countLimit: 10_000))
    }

    /// Pixels held, in bytes, and entries.
    var totals: (bytes: Int, count: Int) { (entries.totalCost, entries.totalCount) }

    /// The smallest fresh entry of `source` whose pixels cover what `requiredScale(size)` needs of
    /// a source of that size, at `now`.
    func lookup(_ source: SourceKey, requiredScale: (PixelSize) -> Double, now: Date) -> Entry? {
        guard byteLimit > 0 else { return nil }
        for reduction in Self.order {
            guard let entry = entries.value(forKey: Key(source: source, reduction: reduction)) else { continue }
            if let expiresAt = entry.expiresAt, expiresAt <= now { continue }
            if entry.covers(requiredScale(entry.sourceSize)) { return entry }
        }
        return nil
    }

    /// The entry kept under `key`, fresh or not.
    func entry(for key: Key) -> Entry? {
        entries.value(forKey: key)
    }

    /// Keeps `entry` under `key` unless its source said `no-store` or it is over
    /// ``maximumEntryBytes``; whether it was kept.
    @discardableResult
    func store(_ entry: Entry, for key: Key) -> Bool {
        guard entry.isStorable, entry.cost <= maximumEntryBytes else { return false }
        entries.store(entry, forKey: key, cost: entry.cost)
        let count = reductions.withLock { reductions in
            reductions[key.source, default: []].insert(key.reduction)
            return reductions.count
        }
        if count > Self.maximumIndexedSources { pruneIndex() }
        return true
    }

    /// What the source's bytes are now (fetched or revalidated): entries made from other bytes, or
    /// of a source that now says `no-store`, are dropped; entries from the same bytes take the new
    /// expiry (they were revalidated with them).
    func refresh(_ source: SourceKey, fingerprint: String, expiresAt: Date?, isStorable: Bool) {
        let known = reductions.withLock { $0[source] ?? [] }
        for reduction in known {
            let key = Key(source: source, reduction: reduction)
            guard var entry = entries.value(forKey: key) else { continue }
            if entry.fingerprint != fingerprint || !isStorable {
                entries.removeValue(forKey: key)
            } else if entry.expiresAt != expiresAt {
                entry.expiresAt = expiresAt
                entries.store(entry, forKey: key, cost: entry.cost)
            }
        }
        if !isStorable { reductions.withLock { $0[source] = nil } }
    }

    /// Drops every entry.
    func removeAll() {
        entries.removeAll()
        reductions.withLock { $0.removeAll() }
    }

    /// Sources indexed before the index is pruned of sources whose entries were all evicted.
    static let maximumIndexedSources = 20_000

    private func pruneIndex() {
        let known = reductions.withLock { $0 }
        let gone = known.filter { source, reductions in
            !reductions.contains { entries.contains(Key(source: source, reduction: $0)) }
        }.keys
        reductions.withLock { reductions in
            for source in gone { reductions[source] = nil }
        }
    }
}
