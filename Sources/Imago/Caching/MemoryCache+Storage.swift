extension MemoryCache {
    /// The cache's state, a plain value kept behind the cache's lock: a dictionary from key to
    /// value and slot, the keys by slot, and their eviction order (``MemoryCacheOrder``, not
    /// generic). Freed slots are reused, so steady-state use allocates nothing per entry.
    ///
    /// A hit (``hit(_:)``) is inlinable, so it is specialized for the caller's key and value types
    /// even in another module; everything else is compiled here.
    ///
    /// Methods that remove entries hand the removed values back instead of dropping them: the
    /// cache releases them after its lock, since freeing a large image (or whatever a value's
    /// deinit does) must not happen while every other thread waits for the lock.
    @usableFromInline
    struct Storage: Sendable {
        /// A stored value and its slot in `order`, kept together so that a hit is one lookup.
        @usableFromInline
        struct Entry: Sendable {
            @usableFromInline var value: Value
            @usableFromInline var slot: Int

            @usableFromInline init(value: Value, slot: Int) {
                self.value = value
                self.slot = slot
            }
        }

        /// The key of each slot, for eviction; nil for a free slot.
        private var keys: [Key?] = []
        @usableFromInline var order = MemoryCacheOrder()
        @usableFromInline var entries: [Key: Entry] = [:]
        private(set) var totalCost = 0
        private(set) var pinnedCost = 0
        private var pinnedCount = 0
        @usableFromInline var hits = 0
        @usableFromInline var misses = 0

        @usableFromInline init() {}

        var count: Int { entries.count }

        var statistics: Statistics {
            Statistics(
                count: count, cost: totalCost, pinnedCount: pinnedCount, pinnedCost: pinnedCost,
                hits: hits, misses: misses)
        }

        /// The value for `key` in a cache whose entries never expire: one dictionary lookup and, at
        /// most, one bit set.
        @inlinable
        mutating func hit(_ key: Key) -> Value? {
            guard let entry = entries[key] else {
                misses += 1
                return nil
            }
            order.touch(entry.slot)
            hits += 1
            return entry.value
        }

        /// The value for `key`; an expired one is removed and handed back as `released`.
        @usableFromInline
        mutating func value(forKey key: Key, now: Duration?) -> (value: Value?, released: Value?) {
            guard let entry = entries[key] else {
                misses += 1
                return (nil, nil)
            }
            if order[entry.slot].isExpired(at: now) {
                misses += 1
                return (nil, remove(entry.slot))
            }
            order.touch(entry.slot)
            hits += 1
            return (entry.value, nil)
        }

        func contains(_ key: Key, now: Duration?) -> Bool {
            guard let entry = entries[key] else { return false }
            return !order[entry.slot].isExpired(at: now)
        }

        mutating func store(
            _ value: Value, forKey key: Key, cost: Int, pinned wantsPin: Bool, expiresAt: Duration?,
            limits: Limits
        ) -> [Value] {
            var released: [Value] = []
            if let existing = entries[key], let old = remove(existing.slot) { released.append(old) }
            guard cost <= limits.cost, limits.count > 0 else { return released }
            // Room is made before the new entry is linked, so that it is never its own victim…
            while totalCost + cost > limits.cost || count + 1 > limits.count, evictUnpinned(into: &released) {}
            let isPinned = wantsPin && pinnedCost + cost <= limits.pinnedCost
            let (slot, isNew) = order.insert(MemoryCacheOrder.Link(cost: cost, isPinned: isPinned, expiresAt: expiresAt))
            if isNew {
                keys.append(key)
            } else {
                keys[slot] = key
            }
            entries[key] = Entry(value: value, slot: slot)
            totalCost += cost
            if isPinned {
                pinnedCost += cost
                pinnedCount += 1
            }
            // …unless pinned entries fill the cache: then the new unpinned entry goes too.
            while totalCost > limits.cost || count > limits.count, evictUnpinned(into: &released) {}
            return released
        }

        /// Evicts the unpinned tier's victim into `released`; false when that tier is empty.
        private mutating func evictUnpinned(into released: inout [Value]) -> Bool {
            let victim = order.victim(pinned: false)
            guard victim != MemoryCacheOrder.none else { return false }
            if let evicted = remove(victim) { released.append(evicted) }
            return true
        }

        mutating func removeValue(forKey key: Key) -> Value? {
            guard let entry = entries[key] else { return nil }
            return remove(entry.slot)
        }

        /// Empties the cache; returns the old values for the caller to release.
        mutating func removeAll() -> [Key: Entry] {
            let released = entries
            keys = []
            order = MemoryCacheOrder()
            entries = [:]
            totalCost = 0
            pinnedCost = 0
            pinnedCount = 0
            return released
        }

        /// Evicts unpinned entries, then pinned ones, each tier in its eviction order, while `isOver`
        /// holds.
        mutating func trim(while isOver: (Self) -> Bool) -> [Value] {
            var released: [Value] = []
            while isOver(self) {
                let isPinned = order.isEmpty(pinned: false)
                let victim = order.victim(pinned: isPinned)
                guard victim != MemoryCacheOrder.none else { break }
                if let evicted = remove(victim) { released.append(evicted) }
            }
            return released
        }

        /// Unlinks the slot, forgets its key, frees the slot and returns its value (for the caller
        /// to release outside the lock).
        @discardableResult
        private mutating func remove(_ slot: Int) -> Value? {
            let released = keys[slot].flatMap { entries.removeValue(forKey: $0)?.value }
            keys[slot] = nil
            let link = order.remove(slot)
            totalCost -= link.cost
            if link.isPinned {
                pinnedCost -= link.cost
                pinnedCount -= 1
            }
            return released
        }
    }
}
