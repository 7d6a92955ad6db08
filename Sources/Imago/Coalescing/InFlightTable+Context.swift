
/// What the shared work and its waiters hold of their entry: the work's ``Context`` and a caller's
/// ``WaiterHandle``.
extension InFlightTable {
    /// What the shared work sees of its waiters.
    struct Context: Sendable {
        let shard: Shard
        let key: Key
        let entry: Entry
        /// Whether this run takes the work over from one whose caller left: only such a run can
        /// find what an earlier run kept, so only it looks.
        var takesOver = false

        /// Passes progress to every waiter still waiting.
        func report(_ progress: ImageTask.Progress) {
            guard entry.progressInterest.load(ordering: .relaxed) > 0 else { return }
            let handlers = withEntry { entry in entry.machine.waiters.compactMap { $0.waiter.progress } } ?? []
            for handler in handlers { handler(progress) }
        }

        /// Whether any waiter asked for updates: when none did, the work need not make them.
        var wantsUpdates: Bool { entry.updatesInterest.load(ordering: .relaxed) > 0 }

        /// Passes `update` to every waiter still waiting that asked for updates.
        func send(_ update: WorkUpdate) {
            guard wantsUpdates else { return }
            let handlers = withEntry { entry in entry.machine.waiters.compactMap { $0.waiter.updates } } ?? []
            for handler in handlers { handler(update) }
        }

        /// The highest priority among the waiters still waiting.
        var priority: ImageRequest.Priority {
            guard let priority = withEntry({ $0.machine.priority }) ?? nil else { return .normal }
            return priority
        }

        /// `body` with the entry under its shard's lock; `nil` once it has left the table.
        private func withEntry<T>(_ body: (Entry) -> T) -> T? {
            shard.state.withLock { _ in entry.isRemoved ? nil : body(entry) }
        }

        /// Keeps `value` (started by this run of the work and not bound to its task) for a run that
        /// takes the work over; `cancel` stops it when every waiter has left. Replaces what was kept.
        func keep(_ value: some Sendable, cancel: @escaping @Sendable () -> Void) {
            // What was kept before is replaced under the lock and released after it.
            guard let replaced = withEntry({ entry in
                defer { entry.kept = Kept(value: value, cancel: cancel) }
                return entry.kept
            }) else {
                cancel()  // abandoned meanwhile
                return
            }
            _ = consume replaced
        }

        /// What an earlier run kept, when it is a `T`. It stays kept (and is still cancelled if
        /// every waiter leaves) until ``discardKept()``.
        func kept<T: Sendable>(_: T.Type) -> T? {
            guard takesOver else { return nil }
            return withEntry { $0.kept?.value as? T } ?? nil
        }

        /// Forgets what was kept: it has ended, or the work no longer needs it.
        func discardKept() {
            // Taken out under the lock, released after it.
            let discarded = withEntry { entry in
                defer { entry.kept = nil }
                return entry.kept
            }
            _ = consume discarded
        }

        /// Calls `observer` whenever the highest waiter priority changes from now on.
        func observePriority(_ observer: @escaping @Sendable (ImageRequest.Priority) -> Void) {
            // What it replaces (nothing, as the pipeline calls it) is released after the lock.
            let replaced = withEntry { entry in
                defer { entry.priorityObserver = observer }
                return entry.priorityObserver
            }
            _ = consume replaced
        }
    }

    /// One caller's place among the waiters, to change its priority while it waits.
    struct WaiterHandle: Sendable {
        let shard: Shard
        let key: Key
        let id: UInt64

        func updatePriority(_ priority: ImageRequest.Priority) {
            let notify = shard.state.withLock { state -> (@Sendable () -> Void)? in
                guard let entry = state.entries[key], let changed = entry.machine.updatePriority(id: id, to: priority),
                    let observer = entry.priorityObserver
                else { return nil }
                return { observer(changed) }
            }
            notify?()
        }
    }
}
