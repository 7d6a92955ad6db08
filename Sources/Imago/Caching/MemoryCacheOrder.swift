/// The recency order of a ``MemoryCache``'s slots and their bookkeeping, none of which depends on
/// the key and value types: two doubly linked LRU lists (unpinned and pinned) threaded by index
/// through one array, plus each slot's cost, tier and deadline.
///
/// It is not generic on purpose: a hit's relinking (``touch(_:)``) is compiled once, here, and
/// called from the cache's inlined, specialized lookup in any module.
@usableFromInline
struct MemoryCacheOrder {
    /// Head (most recently used) and tail (least recently used) of one list.
    struct List {
        var head = MemoryCacheOrder.none
        var tail = MemoryCacheOrder.none
    }

    /// One slot's place in its list, and what the cache knows about its value.
    struct Link {
        var cost: Int
        var isPinned: Bool
        /// Deadline on the cache's elapsed-time scale; nil never expires.
        var expiresAt: Duration?
        /// Toward the more recently used neighbour; `none` at the head.
        var previous = MemoryCacheOrder.none
        /// Toward the less recently used neighbour; `none` at the tail. Also links the free list.
        var next = MemoryCacheOrder.none

        init(cost: Int, isPinned: Bool, expiresAt: Duration?) {
            self.cost = cost
            self.isPinned = isPinned
            self.expiresAt = expiresAt
        }

        func isExpired(at now: Duration?) -> Bool {
            guard let expiresAt, let now else { return false }
            return now >= expiresAt
        }
    }

    static var none: Int { -1 }

    private(set) var links: [Link] = []
    private(set) var unpinned = List()
    private(set) var pinned = List()
    /// The first free slot; free slots are chained through `next`.
    private var freeSlot = MemoryCacheOrder.none

    /// The least recently used unpinned slot, or `none`.
    var unpinnedTail: Int { unpinned.tail }
    /// The least recently used pinned slot, or `none`.
    var pinnedTail: Int { pinned.tail }

    subscript(slot: Int) -> Link { links[slot] }

    /// Makes `slot` the most recently used of its list: what a hit does.
    @usableFromInline
    mutating func touch(_ slot: Int) {
        let isPinned = links[slot].isPinned
        guard (isPinned ? pinned.head : unpinned.head) != slot else { return }
        unlink(slot)
        linkAtHead(slot)
    }

    /// Takes a free slot (or appends one) for a new entry and links it as most recently used.
    /// Returns the slot and whether it is new (past the end of the arrays the caller keeps in step).
    mutating func insert(_ link: Link) -> (slot: Int, isNew: Bool) {
        let slot: Int
        let isNew: Bool
        if freeSlot != Self.none {
            slot = freeSlot
            freeSlot = links[slot].next
            links[slot] = link
            isNew = false
        } else {
            slot = links.count
            links.append(link)
            isNew = true
        }
        linkAtHead(slot)
        return (slot, isNew)
    }

    /// Unlinks `slot`, puts it on the free list and returns what it held.
    mutating func remove(_ slot: Int) -> Link {
        unlink(slot)
        let link = links[slot]
        links[slot] = Link(cost: 0, isPinned: false, expiresAt: nil)
        links[slot].next = freeSlot
        freeSlot = slot
        return link
    }

    private mutating func linkAtHead(_ slot: Int) {
        if links[slot].isPinned {
            Self.insertAtHead(slot, of: &pinned, in: &links)
        } else {
            Self.insertAtHead(slot, of: &unpinned, in: &links)
        }
    }

    private mutating func unlink(_ slot: Int) {
        if links[slot].isPinned {
            Self.unlink(slot, from: &pinned, in: &links)
        } else {
            Self.unlink(slot, from: &unpinned, in: &links)
        }
    }

    private static func insertAtHead(_ slot: Int, of list: inout List, in links: inout [Link]) {
        links[slot].previous = none
        links[slot].next = list.head
        if list.head != none { links[list.head].previous = slot } else { list.tail = slot }
        list.head = slot
    }

    private static func unlink(_ slot: Int, from list: inout List, in links: inout [Link]) {
        let (previous, next) = (links[slot].previous, links[slot].next)
        if previous != none { links[previous].next = next } else { list.head = next }
        if next != none { links[next].previous = previous } else { list.tail = previous }
    }
}
