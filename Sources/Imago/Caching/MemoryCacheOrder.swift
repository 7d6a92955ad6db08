/// The eviction order of a ``MemoryCache``'s slots and their bookkeeping, none of which depends on
/// the key and value types: two doubly linked lists (unpinned and pinned) threaded by index through
/// one array, each slot's cost, tier and deadline, and each slot's "referenced" bit.
///
/// The order is second-chance (CLOCK), the approximation of least-recently-used that operating
/// systems use for pages: a hit only sets the slot's bit (and writes nothing when it is already
/// set), so a hit touches no neighbour and two threads reading the same hot entries do not dirty
/// each other's cache lines. Making room looks at the oldest slot of the list: a slot hit since
/// it last came round has its bit cleared and moves to the head (its second chance); the first
/// slot without the bit is the victim. On skewed traffic its hit rate is that of an exact LRU
/// (`imago-bench --filter memory-cache` measures both on a Zipf workload: 48.9% against 47.6%).
///
/// It is not generic on purpose: eviction is compiled once, here; a hit (``touch(_:)``) is inlined
/// into the cache's specialized lookup in any module.
@usableFromInline
struct MemoryCacheOrder: Sendable {
    /// Head (newest, or most recently given a second chance) and tail (oldest) of one list.
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
        /// Toward the newer neighbour; `none` at the head.
        var previous = MemoryCacheOrder.none
        /// Toward the older neighbour; `none` at the tail. Also links the free list.
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
    /// Whether each slot was hit since eviction last looked at it; kept apart from `links`, one
    /// byte a slot, so a hit reads and writes as little memory as possible.
    @usableFromInline var referenced: [Bool] = []
    private(set) var unpinned = List()
    private(set) var pinned = List()
    /// The first free slot; free slots are chained through `next`.
    private var freeSlot = MemoryCacheOrder.none

    @usableFromInline init() {}

    /// Whether the tier has any slot.
    func isEmpty(pinned isPinned: Bool) -> Bool { (isPinned ? pinned : unpinned).tail == Self.none }

    subscript(slot: Int) -> Link { links[slot] }

    /// Records a hit on `slot`: sets its bit, and writes nothing when the bit is already set.
    @inlinable
    mutating func touch(_ slot: Int) {
        if !referenced[slot] { referenced[slot] = true }
    }

    /// The slot to evict next from one tier, or `none` when the tier is empty: the oldest slot not
    /// hit since it last came round. Slots passed over lose their bit and move to the head. Ends
    /// within one pass of the list, since every slot it passes over is left without its bit.
    mutating func victim(pinned isPinned: Bool) -> Int {
        while true {
            let tail = isPinned ? pinned.tail : unpinned.tail
            guard tail != Self.none, referenced[tail] else { return tail }
            referenced[tail] = false
            unlink(tail)
            linkAtHead(tail)
        }
    }

    /// Takes a free slot (or appends one) for a new entry and links it at the head, without its
    /// bit. Returns the slot and whether it is new (past the end of the arrays the caller keeps
    /// in step).
    mutating func insert(_ link: Link) -> (slot: Int, isNew: Bool) {
        let slot: Int
        let isNew: Bool
        if freeSlot != Self.none {
            slot = freeSlot
            freeSlot = links[slot].next
            links[slot] = link
            referenced[slot] = false
            isNew = false
        } else {
            slot = links.count
            links.append(link)
            referenced.append(false)
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
        referenced[slot] = false
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
