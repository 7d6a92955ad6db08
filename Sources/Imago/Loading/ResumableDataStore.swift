import Foundation
import Synchronization

/// What arrived of downloads that stopped early (a cut connection, a stall, the last caller
/// cancelling), kept in memory so that the next request for the same URL asks only for the rest
/// (`Range` with `If-Range`) instead of starting again.
///
/// Only a response that can be resumed is kept: `Accept-Ranges: bytes`, a strong validator (a
/// strong `ETag`, or a `Last-Modified` at least a second older than the response's `Date`), a
/// declared length, no content coding and no `Cache-Control: no-store`. The store
/// is bounded by count and bytes like every store here and evicts the least recently used first
/// (it is a ``MemoryCache``); a partial download larger than the byte limit is not kept. What it
/// holds is never an image: it only ever saves bytes of a download, and a resumed download is
/// checked against the server's answer (`206` with exactly the `Content-Range` asked for and the
/// validator sent) before a byte of it is used.
public final class ResumableDataStore: Sendable {
    /// Identifies a download: the URL and the request's own headers, so a partial download made
    /// with one set of credentials is never continued under another.
    struct Key: Hashable, Sendable {
        let url: String
        let headers: [String: String]

        init(url: String, headers: [String: String]) {
            self.url = url
            self.headers = headers
        }

        /// The key of a download of `url` asked for with the request's own `headers`.
        init(url: URL, headers: [String: String]) {
            self.init(url: url.absoluteString, headers: headers)
        }
    }

    private let cache: MemoryCache<Key, ResumableData>
    /// False while nothing has been kept since the store was made or emptied: then a lookup,
    /// which every download makes, needs neither the key nor the cache's lock. Set after a value
    /// is stored and cleared before the cache is emptied: once ``store(_:for:)`` has returned, a
    /// lookup sees what it kept (unless the store is emptied or evicts it).
    private let mayHold = Atomic<Bool>(false)

    /// A store of at most `countLimit` partial downloads and `costLimit` bytes. Defaults: 32
    /// downloads, 32 MiB.
    public init(countLimit: Int = 32, costLimit: Int = 32 * 1024 * 1024) {
        cache = MemoryCache(configuration: .init(costLimit: costLimit, countLimit: countLimit, pinnedCostLimit: 0))
    }

    /// Partial downloads held.
    public var count: Int { cache.totalCount }
    /// Bytes held.
    public var totalBytes: Int { cache.totalCost }

    /// Forgets every partial download.
    public func removeAll() {
        mayHold.store(false, ordering: .releasing)
        cache.removeAll()
    }

    /// Keeps `resumable` for the next request of `key`, replacing what was kept for it.
    func store(_ resumable: ResumableData, for key: Key) {
        cache.store(resumable, forKey: key, cost: resumable.data.count)
        mayHold.store(true, ordering: .releasing)
    }

    /// What was kept for `key`, removed from the store: one download continues it. The key is
    /// made only when the store may hold something.
    func take(_ key: @autoclosure () -> Key) -> ResumableData? {
        guard mayHold.load(ordering: .acquiring) else { return nil }
        let key = key()
        guard let resumable = cache.value(forKey: key) else { return nil }
        cache.removeValue(forKey: key)
        return resumable
    }
}
