extension MemoryCache {
    /// The cache's state, a plain value kept behind the cache's `Mutex`: a dictionary from key to
    /// slot, and two doubly linked LRU lists (unpinned and pinned) threaded by index through arrays
    /// of slots. Freed slots are reused through a free list, so steady-state use allocates nothing
    /// per entry.
    ///
    /// Methods that remove entries hand the removed values back instead of dropping them: the
    /// cache releases them after its lock, since freeing a large image (or whatever a value's
    /// deinit does) must not happen while every other thread waits for the lock.
    struct Storage {
        private var keys: [Key?] = []
        private var values: [Value?] = []
        /// Links, costs and deadlines, parallel to `keys` and `values`. Kept in a non-generic array
        /// so relinking on a hit needs no generic metadata even in unspecialized code.
        private var links: [MemoryCacheLink] = []
        private var slots: [Key: Int] = [:]
        private var freeSlot = MemoryCacheLink.none
        private var unpinned = MemoryCacheLink.List()
        private var pinned = MemoryCacheLink.List()
        private(set) var totalCost = 0
        private(set) var pinnedCost = 0
        private var pinnedCount = 0
        private var hits = 0
        private var misses = 0

        var count: Int { slots.count }

        var statistics: Statistics {
            Statistics(
                count: count, cost: totalCost, pinnedCount: pinnedCount, pinnedCost: pinnedCost,
                hits: hits, misses: misses)
        }

        /// The value for `key`; an expired one is removed and handed back as `released`.
        mutating func value(forKey key: Key, now: Duration?) -> (value: Value?, released: Value?) {
            guard let slot = slots[key] else {
                misses += 1
                return (nil, nil)
            }
            if links[slot].isExpired(at: now) {
                misses += 1
                return (nil, remove(slot))
            }
            moveToHead(slot)
            hits += 1
            return (values[slot], nil)
        }

        func contains(_ key: Key, now: Duration?) -> Bool {
            guard let slot = slots[key] else { return false }
            return !links[slot].isExpired(at: now)
        }

        mutating func store(
            _ value: Value, forKey key: Key, cost: Int, pinned wantsPin: Bool, expiresAt: Duration?,
            limits: Limits
        ) -> [Value] {
            var released: [Value] = []
            if let existing = slots[key], let old = remove(existing) { released.append(old) }
            guard cost <= limits.cost, limits.count > 0 else { return released }
            let isPinned = wantsPin && pinnedCost + cost <= limits.pinnedCost
            let link = MemoryCacheLink(cost: cost, isPinned: isPinned, expiresAt: expiresAt)
            let slot: Int
            if freeSlot != MemoryCacheLink.none {
                slot = freeSlot
                freeSlot = links[slot].next
                keys[slot] = key
                values[slot] = value
                links[slot] = link
            } else {
                slot = links.count
                keys.append(key)
                values.append(value)
                links.append(link)
            }
            slots[key] = slot
            linkAtHead(slot)
            totalCost += cost
            if isPinned {
                pinnedCost += cost
                pinnedCount += 1
            }
            while totalCost > limits.cost || count > limits.count, unpinned.tail != MemoryCacheLink.none {
                if let evicted = remove(unpinned.tail) { released.append(evicted) }
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
            links = []
            slots = [:]
            freeSlot = MemoryCacheLink.none
            unpinned = MemoryCacheLink.List()
            pinned = MemoryCacheLink.List()
            totalCost = 0
            pinnedCost = 0
            pinnedCount = 0
            return released
        }

        /// Evicts the least recently used unpinned entry, then pinned ones, while `isOver` holds.
        mutating func trim(while isOver: (Self) -> Bool) -> [Value] {
            var released: [Value] = []
            while isOver(self) {
                let victim = unpinned.tail != MemoryCacheLink.none ? unpinned.tail : pinned.tail
                guard victim != MemoryCacheLink.none else { break }
                if let evicted = remove(victim) { released.append(evicted) }
            }
            return released
        }

        /// Unlinks the slot, forgets its key, puts it on the free list and returns its value (for
        /// the caller to release outside the lock).
        @discardableResult
        private mutating func remove(_ slot: Int) -> Value? {
            unlink(slot)
            if let key = keys[slot] { slots[key] = nil }
            keys[slot] = nil
            let released = values[slot]
            values[slot] = nil
            let link = links[slot]
            totalCost -= link.cost
            if link.isPinned {
                pinnedCost -= link.cost
                pinnedCount -= 1
            }
            links[slot] = MemoryCacheLink(cost: 0, isPinned: false, expiresAt: nil)
            links[slot].next = freeSlot
            freeSlot = slot
            return released
        }

        private mutating func moveToHead(_ slot: Int) {
            let list = links[slot].isPinned ? pinned : unpinned
            guard list.head != slot else { return }
            unlink(slot)
            linkAtHead(slot)
        }

        private mutating func linkAtHead(_ slot: Int) {
            if links[slot].isPinned {
                MemoryCacheLink.insertAtHead(slot, of: &pinned, in: &links)
            } else {
                MemoryCacheLink.insertAtHead(slot, of: &unpinned, in: &links)
            }
        }

        private mutating func unlink(_ slot: Int) {
            if links[slot].isPinned {
                MemoryCacheLink.unlink(slot, from: &pinned, in: &links)
            } else {
                MemoryCacheLink.unlink(slot, from: &unpinned, in: &links)
            }
        }
    }
}

/// One slot's place in an LRU list of ``MemoryCache``, with the bookkeeping that does not depend on
/// the key and value types.
struct MemoryCacheLink {
    /// Head (most recently used) and tail (least recently used) of one list.
    struct List {
        var head = MemoryCacheLink.none
        var tail = MemoryCacheLink.none
    }

    static var none: Int { -1 }

    var cost: Int
    var isPinned: Bool
    /// Deadline on the cache's elapsed-time scale; nil never expires.
    var expiresAt: Duration?
    /// Toward the more recently used neighbour; `none` at the head.
    var previous = MemoryCacheLink.none
    /// Toward the less recently used neighbour; `none` at the tail. Also links the free list.
    var next = MemoryCacheLink.none

    init(cost: Int, isPinned: Bool, expiresAt: Duration?) {
        self.cost = cost
        self.isPinned = isPinned
        self.expiresAt = expiresAt
    }

    func isExpired(at now: Duration?) -> Bool {
        guard let expiresAt, let now else { return false }
        return now >= expiresAt
    }

    static func insertAtHead(_ slot: Int, of list: inout List, in links: inout [MemoryCacheLink]) {
        links[slot].previous = none
        links[slot].next = list.head
        if list.head != none { links[list.head].previous = slot } else { list.tail = slot }
        list.head = slot
    }

    static func unlink(_ slot: Int, from list: inout List, in links: inout [MemoryCacheLink]) {
        let (previous, next) = (links[slot].previous, links[slot].next)
        if previous != none { links[previous].next = next } else { list.head = next }
        if next != none { links[next].previous = previous } else { list.tail = previous }
    }
}
