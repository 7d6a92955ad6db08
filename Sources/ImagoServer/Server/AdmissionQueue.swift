import Imago

#if os(Linux)

/// Performs ``AdmissionGate``'s decisions for concurrent requests.
final class AdmissionQueue: Sendable {
    private typealias Gate = AdmissionGate<CheckedContinuation<Void, Never>>
    private let gate: Locked<Gate>

    init(maximumRunning: Int, maximumWaiting: Int) {
        gate = Locked(Gate(maximumRunning: maximumRunning, maximumWaiting: maximumWaiting))
    }

    /// Requests running and waiting now.
    var counts: (running: Int, waiting: Int) { gate.withLock { ($0.running, $0.waitingCount) } }

    /// Runs `work` when a slot is free, or returns `nil` at once when the queue is full (shed).
    /// A waiter runs when its turn comes; the work is bounded by the pipeline's own timeouts.
    func run<Result: Sendable>(_ work: () async -> Result) async -> Result? {
        var arrival = Gate.Arrival.shed
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            arrival = gate.withLock { $0.arrive(continuation) }
            if arrival != .wait { continuation.resume() }  // a waiter is resumed by `leave`
        }
        guard arrival != .shed else { return nil }
        let result = await work()
        gate.withLock { $0.leave() }?.resume()
        return result
    }
}
#endif
