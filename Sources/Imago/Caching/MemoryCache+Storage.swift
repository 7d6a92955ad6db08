extension MemoryCache {
    /// The cache's state, a plain value kept behind the cache's `Mutex`: a dictionary from key to
    /// slot, the keys and values by slot, and their recency order (``MemoryCacheOrder``, not
    /// generic). Freed slots are reused, so steady-state use allocates nothing per entry.
    ///
    /// A hit (``hit(_:)``) is inlinable, so it is specialized for the caller's key and value types
    /// even in another module; everything else is compiled here.
    ///
    /// Methods that remove entries hand the removed values back instead of dropping them: the
    /// cache releases them after its lock, since freeing a large image (or whatever a value's
    /// deinit does) must not happen while every other thread waits for the lock.
    @usableFromInline
    struct Storage {
        private var keys: [Key?] = []
        @usableFromInline var values: [Value?] = []
        @usableFromInline var order = MemoryCacheOrder()
        @usableFromInline var slots: [Key: Int] = [:]
        private(set) var totalCost = 0
        private(set) var pinnedCost = 0
        private var pinnedCount = 0
        @usableFromInline var hits = 0
        @usableFromInline var misses = 0

        @usableFromInline init() {}

        var count: Int { slots.count }

        var statistics: Statistics {
            Statistics(
                count: count, cost: totalCost, pinnedCount: pinnedCount, pinnedCost: pinnedCost,
                hits: hits, misses: misses)
        }

        /// The value for `key` in a cache whose entries never expire: one dictionary lookup and a
        /// relink.
        @inlinable
        mutating func hit(_ key: Key) -> Value? {
            guard let slot = slots[key] else {
                misses += 1
                return nil
            }
            order.touch(slot)
            hits += 1
            return values[slot]
        }

        /// The value for `key`; an expired one is removed and handed back as `released`.
        @usableFromInline
        mutating func value(forKey key: Key, now: Duration?) -> (value: Value?, released: Value?) {
            guard let slot = slots[key] else {
                misses += 1
                return (nil, nil)
            }
            if order[slot].isExpired(at: now) {
                misses += 1
                return (nil, remove(slot))
            }
            order.touch(slot)
            hits += 1
            return (values[slot], nil)
        }

        func contains(_ key: Key, now: Duration?) -> Bool {
            guard let slot = slots[key] else { return false }
            return !order[slot].isExpired(at: now)
        }

        mutating func store(
            _ value: Value, forKey key: Key, cost: Int, pinned wantsPin: Bool, expiresAt: Duration?,
            limits: Limits
        ) -> [Value] {
            var released: [Value] = []
            if let existing = slots[key], let old = remove(existing) { released.append(old) }
            guard cost <= limits.cost, limits.count > 0 else { return released }
            let isPinned = wantsPin && pinnedCost + cost <= limits.pinnedCost
            let (slot, isNew) = order.insert(MemoryCacheOrder.Link(cost: cost, isPinned: isPinned, expiresAt: expiresAt))
            if isNew {
                keys.append(key)
                values.append(value)
            } else {
                keys[slot] = key
                values[slot] = value
            }
            slots[key] = slot
            totalCost += cost
            if isPinned {
                pinnedCost += cost
                pinnedCount += 1
            }
            while totalCost > limits.cost || count > limits.count, order.unpinnedTail != MemoryCacheOrder.none {
                if let evicted = remove(order.unpinnedTail) { released.append(evicted) }
            }
            return released
        }

        mutating func removeValue(forKey key: Key) -> Value? {
            guard let slot = slots[key] else { return nil }
            return remove(slot)
        }

        /// Empties the cache; returns the old values for the caller to release.
        mutating func removeAll() -> [Value?] {
            let released = values
            keys = []
            values = []
            order = MemoryCacheOrder()
            slots = [:]
            totalCost = 0
            pinnedCost = 0
            pinnedCount = 0
            return released
        }

        /// Evicts the least recently used unpinned entry, then pinned ones, while `isOver` holds.
        mutating func trim(while isOver: (Self) -> Bool) -> [Value] {
            var released: [Value] = []
            while isOver(self) {
                let victim = order.unpinnedTail != MemoryCacheOrder.none ? order.unpinnedTail : order.pinnedTail
                guard victim != MemoryCacheOrder.none else { break }
                if let evicted = remove(victim) { released.append(evicted) }
            }
            return released
        }

        /// Unlinks the slot, forgets its key, frees the slot and returns its value (for the caller
        /// to release outside the lock).
        @discardableResult
        private mutating func remove(_ slot: Int) -> Value? {
            if let key = keys[slot] { slots[key] = nil }
            keys[slot] = nil
            let released = values[slot]
            values[slot] = nil
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
