import Foundation

/// A cache of decoded images (or any values) in memory, bounded by total cost and entry count, that
/// evicts the least recently used first, by the second-chance (CLOCK) approximation of LRU.
///
/// A hit takes one lock and no actor hop, so it is safe to call from the main thread on every
/// frame: one dictionary lookup and at most one bit set (`MemoryCacheOrder`), no relinking, no
/// allocation, inlined into its caller and specialized for the key and value types. Eviction
/// passes over entries hit since it last looked at them, so what is read stays and what is not
/// goes; on skewed traffic the hit rate matches an exact LRU's (`imago-bench` measures both).
/// (`NSCache` is not used: on Linux it is several times slower, is not LRU, and inserts with a
/// cost in linear time.)
///
/// Values leave the cache (evicted, replaced, expired, removed) after the lock is released, so a
/// large image is never freed while other threads wait.
///
/// Entries stored with `pinned: true` form a small tier that making room for new entries never
/// evicts; only ``trim(toCost:)``, ``trim(toCount:)``, removal and expiry do. Pinned entries count
/// toward ``totalCost`` and ``totalCount``. Linux has no memory-pressure notification, so the owner
/// calls `trim` when it learns memory is short.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The limits this cache was created with.
    public let configuration: Configuration

    @usableFromInline let storage: Locked<Storage>
    private let limits: Limits
    /// Whether entries can expire (``Configuration/entryLifetime`` is set): only then does a hit
    /// read the clock.
    @usableFromInline let expires: Bool
    /// Time elapsed since `init` on the injected clock; read only when entries can expire.
    private let elapsed: @Sendable () -> Duration

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - configuration: the limits; see ``Configuration`` for the defaults.
    ///   - clock: the clock that measures ``Configuration/entryLifetime``; tests pass a manual one.
    public init(configuration: Configuration = .init(), clock: any Clock<Duration> = ContinuousClock()) {
        self.configuration = configuration
        self.storage = Locked(Storage())
        self.limits = Limits(configuration)
        self.expires = configuration.entryLifetime != nil
        self.elapsed = Self.elapsedTime(on: clock)
    }

    /// The value for `key`, or nil. A hit marks the entry as used, so that eviction passes over it;
    /// an expired entry is removed and reported as a miss.
    ///
    /// Inlinable, so that a caller in any module gets a lookup specialized for its key and value
    /// types: one lock, one dictionary lookup, one bit, no generic dispatch.
    @inlinable
    public func value(forKey key: Key) -> Value? {
        guard !expires else { return expiringValue(forKey: key) }
        return storage.withLock { $0.hit(key) }
    }

    /// ``value(forKey:)`` in a cache whose entries expire.
    @usableFromInline
    func expiringValue(forKey key: Key) -> Value? {
        let now = elapsed()
        let (value, released) = storage.withLock { $0.value(forKey: key, now: now) }
        withExtendedLifetime(released) {}  // an expired value is freed here, after the lock
        return value
    }

    /// Stores `value` under `key`, replacing any previous value, evicting unpinned entries, least
    /// recently used first, until both ``Configuration/costLimit`` and ``Configuration/countLimit`` hold.
    ///
    /// A value whose cost alone exceeds the cost limit is not stored (and any previous value for the
    /// key is removed, so the cache never returns stale data). A pinned value that would push the
    /// pinned tier past ``Configuration/pinnedCostLimit`` is stored unpinned.
    ///
    /// - Parameters:
    ///   - value: what to keep.
    ///   - key: what to find it by.
    ///   - cost: the value's size in bytes (for a decoded image: its pixel buffer); negative counts as 0.
    ///   - pinned: keep the value through LRU pressure, e.g. for images on screen.
    public func store(_ value: Value, forKey key: Key, cost: Int, pinned: Bool = false) {
        let expiresAt = configuration.entryLifetime.map { elapsed() + $0 }
        let released = storage.withLock {
            $0.store(value, forKey: key, cost: max(cost, 0), pinned: pinned, expiresAt: expiresAt, limits: limits)
        }
        withExtendedLifetime(released) {}  // evicted values are freed here, after the lock
    }

    /// Removes the value for `key`, if any, pinned or not.
    public func removeValue(forKey key: Key) {
        let released = storage.withLock { $0.removeValue(forKey: key) }
        withExtendedLifetime(released) {}
    }

    /// Removes every entry, pinned ones included. Hit and miss counts are kept.
    public func removeAll() {
        let released = storage.withLock { $0.removeAll() }
        withExtendedLifetime(released) {}
    }

    /// Evicts entries until the total cost is at most `cost`: unpinned entries first, then pinned
    /// ones, each least recently used first. Call it under memory pressure.
    public func trim(toCost cost: Int) {
        let released = storage.withLock { $0.trim(while: { $0.totalCost > cost }) }
        withExtendedLifetime(released) {}
    }

    /// Evicts entries until at most `count` remain: unpinned ones first, then pinned, each least recently used first.
    public func trim(toCount count: Int) {
        let released = storage.withLock { $0.trim(while: { $0.count > count }) }
        withExtendedLifetime(released) {}
    }

    /// Whether an unexpired value is stored for `key`; unlike ``value(forKey:)`` it does not change
    /// recency or the hit and miss counts.
    public func contains(_ key: Key) -> Bool {
        let now = expires ? elapsed() : nil
        return storage.withLock { $0.contains(key, now: now) }
    }

    /// The sum of the costs of the stored values, pinned ones included.
    public var totalCost: Int { storage.withLock { $0.totalCost } }

    /// The number of stored values, pinned ones included.
    public var totalCount: Int { storage.withLock { $0.count } }

    /// The sum of the costs of the pinned values.
    public var pinnedCost: Int { storage.withLock { $0.pinnedCost } }

    /// Counts and hit rates, read in one consistent snapshot.
    public var statistics: Statistics { storage.withLock { $0.statistics } }

    /// Opens the clock existential once, so each later reading is a plain generic call.
    private static func elapsedTime<C: Clock<Duration>>(on clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}
