/// The bookkeeping of one piece of shared work (a download or a decode) and the callers waiting
/// for it, as a value: each method changes the state and returns what the owner must do, so the
/// rules are tested without tasks or timing.
///
/// Rules: the first waiter starts the work; later ones join it; a waiter that leaves is answered
/// at once with a cancellation; when the last waiter leaves, the work is cancelled; when the work
/// finishes, every remaining waiter gets the result. The shared priority is the highest waiter's.
struct SharedWorkStateMachine<Waiter> {
    private(set) var waiters: [(id: UInt64, waiter: Waiter, priority: ImageRequest.Priority)] = []
    private(set) var isStarted = false
    private(set) var isClosed = false

    enum AddAction: Equatable {
        /// The first waiter: start the work.
        case start
        /// The work runs already: wait for it.
        case join
        /// The work has finished or was cancelled: make a new one.
        case closed
    }

    enum RemoveAction {
        /// Not waiting (already answered): nothing to do.
        case none
        /// Answer this waiter with a cancellation; the work goes on for the others.
        case cancelWaiter(Waiter)
        /// Answer this waiter with a cancellation and cancel the work: nobody is left.
        case cancelWaiterAndWork(Waiter)
    }

    /// The highest priority among the waiters, `nil` when none are left.
    var priority: ImageRequest.Priority? { waiters.lazy.map(\.priority).max() }

    mutating func add(id: UInt64, waiter: Waiter, priority: ImageRequest.Priority) -> AddAction {
        guard !isClosed else { return .closed }
        waiters.append((id, waiter, priority))
        if isStarted { return .join }
        isStarted = true
        return .start
    }

    mutating func remove(id: UInt64) -> RemoveAction {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return .none }
        let removed = waiters.remove(at: index).waiter
        guard waiters.isEmpty else { return .cancelWaiter(removed) }
        isClosed = true
        return .cancelWaiterAndWork(removed)
    }

    /// Changes one waiter's priority; returns the shared priority when it changed.
    mutating func updatePriority(id: UInt64, to priority: ImageRequest.Priority) -> ImageRequest.Priority? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        let before = self.priority
        waiters[index].priority = priority
        let after = self.priority
        return after != before ? after : nil
    }

    /// The work ended: every waiter left is to be answered with its result.
    mutating func finish() -> [Waiter] {
        isClosed = true
        defer { waiters.removeAll() }
        return waiters.map(\.waiter)
    }

    /// The waiters to tell about progress.
    var currentWaiters: [Waiter] { waiters.map(\.waiter) }
}

extension SharedWorkStateMachine.RemoveAction: Equatable where Waiter: Equatable {}

extension SharedWorkStateMachine: Sendable where Waiter: Sendable {}
