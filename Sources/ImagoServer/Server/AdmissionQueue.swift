import Imago

#if os(Linux)

/// Performs ``AdmissionGate``'s decisions for concurrent requests.
final class AdmissionQueue: Sendable {
    /// How a request went through the queue.
    enum Outcome<Result: Sendable>: Sendable {
        /// It ran, with this result.
        case ran(Result)
        /// The queue was full: it never waited.
        case shed
        /// Its client went (or its task was cancelled) while it waited: it never ran.
        case abandoned
    }

    /// How a wait ended: with a slot, or abandoned.
    private enum Turn: Sendable {
        case run
        case shed
        case abandoned
    }

    private typealias Gate = AdmissionGate<CheckedContinuation<Turn, Never>>

    /// What one waiting request has registered, for whoever ends its wait early.
    private struct Wait: Sendable {
        var ticket: Gate.Ticket?
        var departureToken: ClientDeparture.Token?
    }

    private let gate: Locked<Gate>

    init(maximumRunning: Int, maximumWaiting: Int) {
        gate = Locked(Gate(maximumRunning: maximumRunning, maximumWaiting: maximumWaiting))
    }

    /// Requests running and waiting now.
    var counts: (running: Int, waiting: Int) { gate.withLock { ($0.running, $0.waitingCount) } }

    /// Runs `work` when a slot is free, or returns at once when the queue is full (shed). A
    /// waiter runs when its turn comes, unless its client departs (`departure`) or its task is
    /// cancelled first: then it leaves the queue at once and `work` never starts. The work is
    /// bounded by the pipeline's own timeouts; it is not cut short when the client goes.
    func run<Result: Sendable>(departure: ClientDeparture? = nil, _ work: () async -> Result) async -> Outcome<Result> {
        let wait = Locked(Wait())
        let turn = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
                switch gate.withLock({ $0.arrive(continuation) }) {
                case .run: continuation.resume(returning: .run)
                case .shed: continuation.resume(returning: .shed)
                case .wait(let ticket):
                    // Resumed by `leave` when its turn comes, or by `abandon`.
                    wait.withLock { $0.ticket = ticket }
                    if Task.isCancelled { abandon(ticket) }  // cancelled before the handler could see the ticket
                    let token = departure?.onDeparture { [self] in abandon(ticket) }
                    wait.withLock { $0.departureToken = token }
                }
            }
        } onCancel: {
            if let ticket = wait.withLock({ $0.ticket }) { abandon(ticket) }
        }
        let registered = wait.withLock { $0 }
        if let token = registered.departureToken { departure?.cancel(token) }
        switch turn {
        case .shed: return .shed
        case .abandoned: return .abandoned
        case .run: break
        }
        // A waiter whose client went just as its turn came passes the slot on unused.
        if registered.ticket != nil, departure?.hasDeparted == true || Task.isCancelled {
            finish()
            return .abandoned
        }
        let result = await work()
        finish()
        return .ran(result)
    }

    /// A running request is done: its slot passes to the next waiter, if any.
    private func finish() {
        gate.withLock { $0.leave() }?.resume(returning: .run)
    }

    /// The waiter `ticket` names stops waiting, if it still waits.
    private func abandon(_ ticket: Gate.Ticket) {
        gate.withLock { $0.abandon(ticket) }?.resume(returning: .abandoned)
    }
}
#endif
