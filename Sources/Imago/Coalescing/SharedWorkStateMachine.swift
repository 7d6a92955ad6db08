/// The bookkeeping of one piece of shared work (a download or a decode) and the callers waiting
/// for it, as a value: each method changes the state and returns what the owner must do, so the
/// rules are tested without tasks or timing.
///
/// Rules: the first waiter starts the work; later ones join it; a waiter that leaves is answered
/// at once with a cancellation; when the last waiter leaves, the work is cancelled; when the work
/// finishes, every remaining waiter gets the result. The shared priority is the highest waiter's.
/// A work may run in its first waiter's own task (the runner): when it stops because the runner
/// left while others wait, it is handed over to a task of theirs (``endRun(runner:stoppedByLeaving:)``).
struct SharedWorkStateMachine<Waiter> {
    /// One waiter and what the machine knows of it. A struct, not a tuple: arrays of tuples go
    /// through the runtime's generic tuple witnesses on every copy, a struct's are compiled in.
    struct Slot {
        let id: UInt64
        let waiter: Waiter
        var priority: ImageRequest.Priority
    }

    private(set) var waiters: [Slot] = []
    private(set) var isStarted = false
    private(set) var isClosed = false
    /// How many waiters wait at each priority, so the shared priority is known without visiting
    /// the waiters (each join asks for it: visiting them made joining O(waiters)).
    private var counts = PriorityCounts()

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

    /// Waiters taken out to be answered, in the order they came: their slots moved out whole, not
    /// copied into a new array (a finishing work allocates nothing for them).
    typealias Answered = LazyMapSequence<[Slot], Waiter>

    enum RunEndAction {
        /// Answer these waiters with the work's outcome (the runner among them when it stayed).
        case finish(Answered, runnerStayed: Bool)
        /// The runner left, the work stopped with it, and others still wait: run it again for
        /// them, in a task of its own. Nothing changes: they keep waiting for the same work.
        case handOver
    }

    /// The highest priority among the waiters, `nil` when none are left.
    var priority: ImageRequest.Priority? { counts.highest }

    mutating func add(id: UInt64, waiter: Waiter, priority: ImageRequest.Priority) -> AddAction {
        guard !isClosed else { return .closed }
        waiters.append(Slot(id: id, waiter: waiter, priority: priority))
        counts[priority] += 1
        if isStarted { return .join }
        isStarted = true
        return .start
    }

    mutating func remove(id: UInt64) -> RemoveAction {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return .none }
        counts[waiters[index].priority] -= 1
        let removed = waiters.remove(at: index).waiter
        guard waiters.isEmpty else { return .cancelWaiter(removed) }
        isClosed = true
        return .cancelWaiterAndWork(removed)
    }

    /// Changes one waiter's priority; returns the shared priority when it changed.
    mutating func updatePriority(id: UInt64, to priority: ImageRequest.Priority) -> ImageRequest.Priority? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        let before = self.priority
        counts[waiters[index].priority] -= 1
        counts[priority] += 1
        waiters[index].priority = priority
        let after = self.priority
        return after != before ? after : nil
    }

    /// The work ended: every waiter left is to be answered with its result.
    mutating func finish() -> Answered {
        isClosed = true
        counts = PriorityCounts()
        let answered = waiters
        waiters = []
        return answered.lazy.map { $0.waiter }  // a closure: a key path here is made at run time, on the heap
    }

    /// The work that ran in waiter `runner`'s task ended; `stoppedByLeaving`: it failed while
    /// that task was cancelled, so it may have stopped only because the runner left.
    mutating func endRun(runner: UInt64, stoppedByLeaving: Bool) -> RunEndAction {
        let runnerStayed = waiters.contains { $0.id == runner }
        if !runnerStayed, stoppedByLeaving, !waiters.isEmpty, !isClosed { return .handOver }
        return .finish(finish(), runnerStayed: runnerStayed)
    }

    /// The waiters to tell about progress.
    var currentWaiters: [Waiter] { waiters.map(\.waiter) }
}

/// A count for each ``ImageRequest/Priority``, and the highest with any.
struct PriorityCounts: Sendable, Equatable {
    private var veryLow = 0
    private var low = 0
    private var normal = 0
    private var high = 0
    private var veryHigh = 0

    subscript(priority: ImageRequest.Priority) -> Int {
        get {
            switch priority {
            case .veryLow: veryLow
            case .low: low
            case .normal: normal
            case .high: high
            case .veryHigh: veryHigh
            }
        }
        set {
            switch priority {
            case .veryLow: veryLow = newValue
            case .low: low = newValue
            case .normal: normal = newValue
            case .high: high = newValue
            case .veryHigh: veryHigh = newValue
            }
        }
    }

    /// The highest priority counted more than zero times; `nil` when none is.
    var highest: ImageRequest.Priority? {
        if veryHigh > 0 { return .veryHigh }
        if high > 0 { return .high }
        if normal > 0 { return .normal }
        if low > 0 { return .low }
        return veryLow > 0 ? .veryLow : nil
    }
}

extension SharedWorkStateMachine.RemoveAction: Equatable where Waiter: Equatable {}

extension SharedWorkStateMachine: Sendable where Waiter: Sendable {}

extension SharedWorkStateMachine.Slot: Sendable where Waiter: Sendable {}
