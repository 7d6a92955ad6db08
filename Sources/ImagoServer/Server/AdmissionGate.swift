#if os(Linux)
/// The bounded queue in front of the pipeline, as a value: at most ``maximumRunning`` requests
/// work at once, at most ``maximumWaiting`` wait, and the rest are shed at once (429 with
/// `Retry-After`), so a burst never turns into unbounded waiting. A waiting request whose client
/// has gone is ``abandon(_:)``ed: it leaves the queue without ever taking a slot. Each call
/// returns what the owner does next (``AdmissionQueue`` performs it), so it is tested without
/// timing.
package struct AdmissionGate<Waiter>: Sendable where Waiter: Sendable {
    /// Names a waiting request, to abandon it.
    package struct Ticket: Hashable, Sendable {
        fileprivate let number: UInt64
    }

    /// What to do with an arriving request.
    package enum Arrival: Sendable, Equatable {
        case run
        /// Keep it until ``leave()`` hands it a slot, or until it is abandoned with this ticket.
        case wait(Ticket)
        case shed
    }

    private struct Entry: Sendable {
        var ticket: Ticket
        var waiter: Waiter
    }

    package let maximumRunning: Int
    package let maximumWaiting: Int
    package private(set) var running = 0
    /// Waiters in arrival order (so in ticket order) from `head`; the ones before it have run.
    private var waiting: [Entry] = []
    private var head = 0
    private var nextTicket: UInt64 = 0

    package init(maximumRunning: Int, maximumWaiting: Int) {
        self.maximumRunning = max(1, maximumRunning)
        self.maximumWaiting = max(0, maximumWaiting)
    }

    /// Requests waiting now.
    package var waitingCount: Int { waiting.count - head }

    /// A request arrives; `waiter` is kept when it must wait.
    package mutating func arrive(_ waiter: Waiter) -> Arrival {
        if running < maximumRunning {
            running += 1
            return .run
        }
        guard waitingCount < maximumWaiting else { return .shed }
        let ticket = Ticket(number: nextTicket)
        nextTicket &+= 1  // 2^64 arrivals: never in a process's life
        waiting.append(Entry(ticket: ticket, waiter: waiter))
        return .wait(ticket)
    }

    /// A running request is done; returns the waiter that runs in its place, if any.
    package mutating func leave() -> Waiter? {
        guard head < waiting.count else {
            running = max(0, running - 1)
            return nil
        }
        let next = waiting[head].waiter
        head += 1
        if head > 64, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return next  // the slot passes to it: running stays
    }

    /// The waiting request `ticket` names will not run (its client has gone): it leaves the queue
    /// and its waiter is returned, for the owner to resume as abandoned; no slot is taken or
    /// given. `nil` when it no longer waits: its turn came first (it holds a slot, which it gives
    /// back through ``leave()``), or it was abandoned already.
    package mutating func abandon(_ ticket: Ticket) -> Waiter? {
        // Tickets grow in arrival order: a binary search over the waiting part.
        var low = head
        var high = waiting.count
        while low < high {
            let middle = low + (high - low) / 2
            if waiting[middle].ticket.number < ticket.number { low = middle + 1 } else { high = middle }
        }
        guard low < waiting.count, waiting[low].ticket == ticket else { return nil }
        return waiting.remove(at: low).waiter  // at most maximumWaiting entries move
    }
}
#endif
