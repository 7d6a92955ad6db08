import Synchronization

/// Work under way, by key: a caller that needs what another caller has started waits for that
/// instead of doing it again (the decodes of one source at one reduction, for the sizes of a
/// `srcset` that arrive together).
final class KeyedFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let running = Mutex<[Key: Task<Value, Never>]>([:])

    /// The value of the work for `key`: joins the work running, or runs `work` (to its end, even
    /// if this caller is cancelled: others may be waiting for it).
    func run(_ key: Key, _ work: @escaping @Sendable () async -> Value) async -> Value {
        let (task, started) = running.withLock { table -> (Task<Value, Never>, Bool) in
            if let task = table[key] { return (task, false) }
            let task = Task { await work() }
            table[key] = task
            return (task, true)
        }
        let value = await task.value
        if started { running.withLock { _ = $0.removeValue(forKey: key) } }
        return value
    }

    /// Waits for the work running now under every key `matches` accepts.
    func wait(for matches: (Key) -> Bool) async {
        let tasks = running.withLock { table in table.filter { matches($0.key) }.map(\.value) }
        for task in tasks { _ = await task.value }
    }

    /// Work running now.
    var count: Int { running.withLock { $0.count } }
}
