import Foundation
import Imago
import Synchronization

/// The proxy's decoded tier: what shrink-on-load made of a source (the DCT- or scale-reduced
/// pixels, before any crop or resize), kept so that later sizes of the source are made from it
/// without downloading or decoding it again. A `srcset` asks for many sizes of each source, and a
/// fleet sends every size of a source to one instance (consistent hashing), so that instance
/// decodes it once.
///
/// Entries are keyed by the source, its colour handling and the reduction (1/8, 1/4, 1/2 or
/// full), so a request that needs more pixels than a small entry has decodes at a larger scale
/// and keeps that too. Bounded by bytes (``MemoryCache``, which evicts what is least recently
/// used); an entry lives no longer than its source is fresh, is never kept for a `no-store`
/// source, and is dropped when the source's bytes change (``DecodedSource/fingerprint``).
///
/// Why a server-side store around the pipeline rather than inside it: the proxy decodes the bytes
/// itself (at the reduction each request needs, with its own limits), and the pipeline's stages are
/// left as they are; a library user who wants the same sharing can put this pattern around
/// ``ImagePipeline/data(for:)``.
final class DecodedSourceStore: Sendable {
    /// One decode of one source.
    struct Key: Hashable, Sendable {
        var source: SourceKey
        /// 1, 2, 4 or 8: each side divided by it (or more exactly, what the decoder made of it).
        var reduction: Int
    }

    /// A source as decoded: its URL and colour handling.
    struct SourceKey: Hashable, Sendable {
        var url: String
        var handling: ColorProfileHandling
    }

    /// What the store has for a request.
    enum Lookup {
        /// A fresh entry whose pixels cover the request.
        case hit(DecodedSource)
        /// Entries of the source exist but are expired (or too small): the source must be
        /// consulted; an expired entry is still good if the source's bytes turn out unchanged.
        case stale(DecodedSource)
        case miss
    }

    private let entries: MemoryCache<Key, DecodedSource>
    /// The reductions each source has had stored (some may have been evicted since).
    private let reductions = Mutex<[SourceKey: Set<Int>]>([:])

    /// The reductions, smallest pixels first.
    static let order = [8, 4, 2, 1]

    /// A store of at most `byteLimit` bytes of pixels (0: keeps nothing).
    init(byteLimit: Int) {
        entries = MemoryCache(configuration: .init(costLimit: max(0, byteLimit), countLimit: 10_000))
    }

    /// Pixels held, in bytes, and entries.
    var totals: (bytes: Int, count: Int) { (entries.totalCost, entries.totalCount) }

    /// The smallest fresh entry of `source` whose pixels cover what `requiredScale(size)` needs of
    /// a source of that size, at `now`.
    func lookup(_ source: SourceKey, requiredScale: (PixelSize) -> Double, now: Date) -> Lookup {
        var stale: DecodedSource?
        for reduction in Self.order {
            guard let entry = entries.value(forKey: Key(source: source, reduction: reduction)) else { continue }
            guard entry.covers(requiredScale(entry.size)) else {
                stale = stale ?? entry
                continue
            }
            if let expiresAt = entry.expiresAt, expiresAt <= now {
                stale = entry
                continue
            }
            return .hit(entry)
        }
        return stale.map { .stale($0) } ?? .miss
    }

    /// Keeps `decoded` (reduced by `reduction`) unless its source said `no-store`.
    func store(_ decoded: DecodedSource, source: SourceKey, reduction: Int) {
        guard decoded.isStorable else { return }
        entries.store(decoded, forKey: Key(source: source, reduction: reduction), cost: Self.cost(of: decoded))
        let count = reductions.withLock { reductions in
            reductions[source, default: []].insert(reduction)
            return reductions.count
        }
        if count > Self.maximumIndexedSources { pruneIndex() }
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
                entries.store(entry, forKey: key, cost: Self.cost(of: entry))
            }
        }
        if !isStorable { reductions.withLock { $0[source] = nil } }
    }

    /// An entry's cost: its pixels (the rest is small and fixed).
    private static func cost(of decoded: DecodedSource) -> Int {
        decoded.bitmap.byteCount + 256
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

    /// Drops every entry of `source`.
    func remove(_ source: SourceKey) {
        let known = reductions.withLock { $0.removeValue(forKey: source) ?? [] }
        for reduction in known { entries.removeValue(forKey: Key(source: source, reduction: reduction)) }
    }
}
