
/// Work under way, by key: a caller that needs what another caller has started waits for that
/// instead of doing it again (the decodes of one source at one reduction, for the sizes of a
/// `srcset` that arrive together).
///
/// The caller that starts the work runs it in its own task, at once: a decode that followed a
/// download in a task of its own would queue behind every other task of the process, and the
/// downloaded bodies would pile up meanwhile. Callers that join wait on a continuation.
final class KeyedFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// One work under way; its variables are touched only under the table's lock.
    private final class Flight: @unchecked Sendable {
        var joiners: [CheckedContinuation<Value?, Never>] = []
        var watchers: [CheckedContinuation<Void, Never>] = []
        var isFinished = false
    }

    private let running = Locked<[Key: Flight]>([:])

    /// The value of the work for `key`: joins the work running, or runs `work` in this task (to
    /// its end, even if this caller is cancelled: others may be waiting for it).
    func run(_ key: Key, _ work: () async -> Value) async -> Value {
        // Joining and starting are decided under one lock, with the continuation at hand: a
        // work that finishes in between can never be missed. The starter is resumed at once
        // with `nil` (no suspension).
        let joined = await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let starts = running.withLock { table -> Bool in
                if let flight = table[key] {
                    flight.joiners.append(continuation)
                    return false
                }
                table[key] = Flight()
                return true
            }
            if starts { continuation.resume(returning: nil) }
        }
        if let joined { return joined }
        let value = await work()
        let flight = running.withLock { table -> Flight? in
            let flight = table.removeValue(forKey: key)
            flight?.isFinished = true
            return flight
        }
        // The waiters are resumed after the lock; the flight is no longer reachable by then.
        for joiner in flight?.joiners ?? [] { joiner.resume(returning: value) }
        for watcher in flight?.watchers ?? [] { watcher.resume() }
        return value
    }

    /// Waits for the work running now under every key `matches` accepts (work started later is
    /// not waited for).
    func wait(for matches: (Key) -> Bool) async {
        let flights = running.withLock { table in table.filter { matches($0.key) }.map(\.value) }
        for flight in flights {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let finished = running.withLock { _ -> Bool in
                    if flight.isFinished { return true }
                    flight.watchers.append(continuation)
                    return false
                }
                if finished { continuation.resume() }
            }
        }
    }

    /// Work running now.
    var count: Int { running.withLock { $0.count } }

    /// Callers waiting for work that another caller runs.
    var joinerCount: Int { running.withLock { $0.values.reduce(0) { $0 + $1.joiners.count } } }
}
