extension MemoryCache {
    /// The cache's state, a plain value kept behind the cache's `Mutex`: a dictionary from key to
    /// node slot, and two doubly linked LRU lists (unpinned and pinned) threaded through an array of
    /// nodes by index. Freed slots are reused through a free list, so steady-state use allocates
    /// nothing per entry.
    struct Storage {
        private struct Node {
            var key: Key?
            var value: Value?
            var cost = 0
            var isPinned = false
            /// Deadline on the cache's elapsed-time scale; nil never expires.
            var expiresAt: Duration?
            /// Toward the more recently used neighbour; `none` at the head.
            var previous = Storage.none
            /// Toward the less recently used neighbour; `none` at the tail. Links the free list too.
            var next = Storage.none
        }

        /// Head (most recent) and tail (least recent) of one list.
        private struct List {
            var head = Storage.none
            var tail = Storage.none
        }

        private static var none: Int { -1 }

        private var nodes: [Node] = []
        private var slots: [Key: Int] = [:]
        private var freeSlot = Storage.none
        private var unpinned = List()
        private var pinned = List()
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

        mutating func value(forKey key: Key, now: Duration?) -> Value? {
            guard let slot = slots[key] else {
                misses += 1
                return nil
            }
            if isExpired(slot, now: now) {
                remove(slot)
                misses += 1
                return nil
            }
            unlink(slot)
            linkAtHead(slot)
            hits += 1
            return nodes[slot].value
        }

        func contains(_ key: Key, now: Duration?) -> Bool {
            guard let slot = slots[key] else { return false }
            return !isExpired(slot, now: now)
        }

        mutating func store(
            _ value: Value, forKey key: Key, cost: Int, pinned wantsPin: Bool, expiresAt: Duration?,
            limits: Limits
        ) {
            if let existing = slots[key] { remove(existing) }
            guard cost <= limits.cost, limits.count > 0 else { return }
            let isPinned = wantsPin && pinnedCost + cost <= limits.pinnedCost
            let node = Node(key: key, value: value, cost: cost, isPinned: isPinned, expiresAt: expiresAt)
            let slot: Int
            if freeSlot != Self.none {
                slot = freeSlot
                freeSlot = nodes[slot].next
                nodes[slot] = node
            } else {
                slot = nodes.count
                nodes.append(node)
            }
            slots[key] = slot
            linkAtHead(slot)
            totalCost += cost
            if isPinned {
                pinnedCost += cost
                pinnedCount += 1
            }
            while totalCost > limits.cost || count > limits.count, unpinned.tail != Self.none {
                remove(unpinned.tail)
            }
        }

        mutating func removeValue(forKey key: Key) {
            if let slot = slots[key] { remove(slot) }
        }

        mutating func removeAll() {
            nodes = []
            slots = [:]
            freeSlot = Self.none
            unpinned = List()
            pinned = List()
            totalCost = 0
            pinnedCost = 0
            pinnedCount = 0
        }

        /// Evicts the least recently used unpinned entry, then pinned ones, while `isOver` holds.
        mutating func trim(while isOver: (Self) -> Bool) {
            while isOver(self) {
                let victim = unpinned.tail != Self.none ? unpinned.tail : pinned.tail
                guard victim != Self.none else { return }
                remove(victim)
            }
        }

        private func isExpired(_ slot: Int, now: Duration?) -> Bool {
            guard let deadline = nodes[slot].expiresAt, let now else { return false }
            return now >= deadline
        }

        /// Unlinks the slot, forgets its key and value, and puts it on the free list.
        private mutating func remove(_ slot: Int) {
            unlink(slot)
            let node = nodes[slot]
            if let key = node.key { slots[key] = nil }
            totalCost -= node.cost
            if node.isPinned {
                pinnedCost -= node.cost
                pinnedCount -= 1
            }
            nodes[slot] = Node(next: freeSlot)
            freeSlot = slot
        }

        private mutating func linkAtHead(_ slot: Int) {
            let isPinned = nodes[slot].isPinned
            var list = isPinned ? pinned : unpinned
            nodes[slot].previous = Self.none
            nodes[slot].next = list.head
            if list.head != Self.none { nodes[list.head].previous = slot } else { list.tail = slot }
            list.head = slot
            if isPinned { pinned = list } else { unpinned = list }
        }

        private mutating func unlink(_ slot: Int) {
            let isPinned = nodes[slot].isPinned
            var list = isPinned ? pinned : unpinned
            let (previous, next) = (nodes[slot].previous, nodes[slot].next)
            if previous != Self.none { nodes[previous].next = next } else { list.head = next }
            if next != Self.none { nodes[next].previous = previous } else { list.tail = previous }
            if isPinned { pinned = list } else { unpinned = list }
        }
    }
}
