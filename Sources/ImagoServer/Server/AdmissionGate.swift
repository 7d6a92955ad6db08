#if os(Linux)
/// The bounded queue in front of the pipeline, as a value: at most ``maximumRunning`` requests
/// work at once, at most ``maximumWaiting`` wait, and the rest are shed at once (429 with
/// `Retry-After`), so a burst never turns into unbounded waiting. Each call returns what the
/// owner does next (``AdmissionQueue`` performs it), so it is tested without timing.
package struct AdmissionGate<Waiter>: Sendable where Waiter: Sendable {
    /// What to do with an arriving request.
    package enum Arrival: Sendable {
        case run
        case wait
        case shed
    }

    package let maximumRunning: Int
    package let maximumWaiting: Int
    package private(set) var running = 0
    private var waiting: [Waiter] = []
    private var head = 0

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
        waiting.append(waiter)
        return .wait
    }

    /// A running request is done; returns the waiter that runs in its place, if any.
    package mutating func leave() -> Waiter? {
        guard head < waiting.count else {
            running = max(0, running - 1)
            return nil
        }
        let next = waiting[head]
        head += 1
        if head > 64, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return next  // the slot passes to it: running stays
    }
}
#endif
