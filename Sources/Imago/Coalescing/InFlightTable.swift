import Synchronization

/// The work under way, at most one piece per key: callers asking for the same key while it runs
/// share it, each can leave alone, and the work is cancelled only when its last caller leaves.
///
/// The work runs in its own unstructured task, so no caller's cancellation reaches it directly;
/// or, when the caller asks (`runsInCaller`), in the task of the caller who starts it, which saves
/// a task and the trip back to that caller. Such a work keeps what must outlive that caller (a
/// download bound to no task) with ``Context/keep(_:cancel:)`` until it ends. When the caller
/// leaves while others wait, the work stops with it and starts again in a task of its own, which
/// finds what was kept and takes it over.
/// The table is split into shards by key, each behind its own lock, so callers of different
/// images do not wait for each other's bookkeeping (a request takes a lock four or five times: to
/// join, to watch the priority, to read it, to finish; the work holds its entry, so only joining
/// and finishing look the key up). A lock is held only for bookkeeping, never across work, and
/// nothing is released under it: what a finished or abandoned entry held (its task, its priority
/// observer and whatever they hold) is taken out and dropped after the lock.
final class InFlightTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    typealias Outcome = Result<Value, ImagePipeline.Error>

    struct Waiter: Sendable {
        /// `nil` for the caller the work runs in, which gets the outcome as it returns.
        ///
        /// Unsafe, not checked: a waiter is taken out of its entry under the shard's lock before
        /// it is answered, so it is answered once. And the checked kind is a resilient type of the
        /// concurrency library, whose layout is known only at run time: every copy of a waiter
        /// went through value witnesses that looked up the generic metadata of its fields, about
        /// 40 lookups per download (Benchmarks/README.md, "Coalescing").
        let continuation: UnsafeContinuation<Outcome, Never>?
        let progress: (@Sendable (ImageTask.Progress) -> Void)?
        /// Told the work's other news (the body so far, previews); `nil` when not wanted.
        let updates: (@Sendable (WorkUpdate) -> Void)?
        let cancellation: ImagePipeline.Error
    }

    /// Shards (a power of two): enough that a few dozen downloads rarely share one.
    private static var shardCount: Int { 16 }

    private let shards: [Shard] = (0..<InFlightTable.shardCount).map { _ in Shard() }
    /// Waiter IDs, unique across shards.
    private let lastID = Atomic<UInt64>(0)

    private func makeID() -> UInt64 { lastID.wrappingAdd(1, ordering: .relaxed).newValue }

    private func shard(for key: Key) -> Shard { shards[key.hashValue & (Self.shardCount - 1)] }

    /// Number of keys with work under way.
    var count: Int { shards.reduce(0) { count, shard in count + shard.state.withLock { $0.entries.count } } }

    /// Callers waiting for the work for `key`.
    func waiterCount(for key: Key) -> Int { shard(for: key).state.withLock { $0.entries[key]?.machine.waiters.count ?? 0 } }

    /// Waits for the work for `key`, starting it with `work` when none runs.
    ///
    /// - Parameters:
    ///   - cancellation: the error this caller gets when it is cancelled.
    ///   - progress: told about the shared work's progress, from any thread.
    ///   - updates: told the work's other news (``WorkUpdate``), from any thread.
    ///   - runsInCaller: run a work this call starts in the calling task rather than a task of
    ///     its own (see the type's notes); a work it joins runs wherever it was started.
    ///
    /// `@concurrent`: it runs on the global executor whoever calls it, so a work that starts at
    /// once (see ``start(_:context:priority:)``) never runs on the caller's actor, the main actor
    /// included.
    @concurrent
    func value(
        for key: Key, priority: ImageRequest.Priority, cancellation: ImagePipeline.Error,
        progress: (@Sendable (ImageTask.Progress) -> Void)? = nil,
        updates: (@Sendable (WorkUpdate) -> Void)? = nil,
        onWaiting: (WaiterHandle) -> Void = { _ in },
        runsInCaller: Bool = false,
        work: @escaping @Sendable (Context) async throws(ImagePipeline.Error) -> Value
    ) async throws(ImagePipeline.Error) -> Value {
        let id = makeID()
        let shard = shard(for: key)
        if runsInCaller {
            let runner = Waiter(continuation: nil, progress: progress, updates: updates, cancellation: cancellation)
            switch startInCaller(shard: shard, key: key, id: id, waiter: runner, priority: priority) {
            case .refused:
                throw cancellation
            case .join:
                break
            case .run(let context):
                onWaiting(WaiterHandle(shard: shard, key: key, id: id))
                return try await run(work, context: context, runner: id, cancellation: cancellation).get()
            }
        }
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Outcome, Never>) in
                let waiter = Waiter(continuation: continuation, progress: progress, updates: updates, cancellation: cancellation)
                join(shard: shard, key: key, id: id, waiter: waiter, priority: priority, work: work)
                onWaiting(WaiterHandle(shard: shard, key: key, id: id))
            }
        } onCancel: {
            leave(shard: shard, key: key, id: id)
        }
        return try outcome.get()
    }

    private enum CallerStart {
        /// The caller was cancelled before it asked.
        case refused
        /// A work for the key runs already: wait for it.
        case join
        /// The caller starts the work and runs it.
        case run(Context)
    }

    /// Registers the caller as the runner of a new work for `key`, unless one runs already.
    private func startInCaller(
        shard: Shard, key: Key, id: UInt64, waiter: Waiter, priority: ImageRequest.Priority
    ) -> CallerStart {
        let (start, replaced) = shard.state.withLock { state -> (CallerStart, Leftovers?) in
            if Task.isCancelled { return (.refused, nil) }
            var replaced: Leftovers?
            if let existing = state.entries[key] {
                if !existing.machine.isClosed { return (.join, nil) }
                replaced = state.remove(key)  // finished or abandoned
            }
            let entry = Entry()
            guard entry.machine.add(id: id, waiter: waiter, priority: priority) == .start else { return (.join, replaced) }
            entry.count(waiter, 1)
            state.entries[key] = entry
            return (.run(Context(shard: shard, key: key, entry: entry)), replaced)
        }
        _ = consume replaced  // freed after the lock
        return start
    }

    /// Runs `work` in this task for its waiters; hands it over to a task of its own when this
    /// caller leaves and the work stops with it while others still wait.
    private func run(
        _ work: @escaping @Sendable (Context) async throws(ImagePipeline.Error) -> Value, context: Context, runner: UInt64,
        cancellation: ImagePipeline.Error
    ) async -> Outcome {
        let outcome = await withTaskCancellationHandler { () async -> Outcome in
            do throws(ImagePipeline.Error) {
                return .success(try await work(context))
            } catch {
                return .failure(error)
            }
        } onCancel: {
            leave(shard: context.shard, key: context.key, id: runner)
        }
        let stoppedByLeaving: Bool
        if case .failure = outcome { stoppedByLeaving = Task.isCancelled } else { stoppedByLeaving = false }
        typealias Ending = (SharedWorkStateMachine<Waiter>.RunEndAction?, Leftovers?)
        let (action, removed): Ending = context.shard.state.withLock { state in
            // Removed: abandoned (every waiter left, the runner too).
            guard !context.entry.isRemoved else { return (nil, nil) }
            let action = context.entry.machine.endRun(runner: runner, stoppedByLeaving: stoppedByLeaving)
            guard case .finish = action else { return (action, nil) }
            return (action, state.remove(context.key))
        }
        removed?.kept?.cancel()  // nothing should be left running; if it is, nobody will take it over
        _ = consume removed  // freed after the lock, before any waiter resumes
        switch action {
        case .finish(let waiters, let runnerStayed):
            for waiter in waiters { waiter.continuation?.resume(returning: outcome) }
            return runnerStayed ? outcome : .failure(cancellation)
        case .handOver:
            var takeover = context
            takeover.takesOver = true
            start(work, context: takeover, priority: context.priority)
            return .failure(cancellation)
        case nil:
            return .failure(cancellation)
        }
    }

    private func join(
        shard: Shard, key: Key, id: UInt64, waiter: Waiter, priority: ImageRequest.Priority,
        work: @escaping @Sendable (Context) async throws(ImagePipeline.Error) -> Value
    ) {
        let (answerNow, notify, replaced, start) = shard.state.withLock {
            state -> (Bool, (@Sendable () -> Void)?, Leftovers?, Context?) in
            // Checked under the lock: `leave` takes it too, so a cancellation is either seen
            // here or finds the waiter registered.
            if Task.isCancelled { return (true, nil, nil, nil) }
            var replaced: Leftovers?
            while true {
                let entry: Entry
                if let existing = state.entries[key] {
                    entry = existing
                } else {
                    entry = Entry()
                    state.entries[key] = entry
                }
                let before = entry.machine.priority
                let action = entry.machine.add(id: id, waiter: waiter, priority: priority)
                if action != .closed { entry.count(waiter, 1) }
                switch action {
                case .join:
                    guard let before, priority > before, let observer = entry.priorityObserver else {
                        return (false, nil, replaced, nil)
                    }
                    return (false, { observer(priority) }, replaced, nil)
                case .closed:
                    // Finished or abandoned: replace it (released after the lock).
                    replaced = state.remove(key)
                case .start:
                    return (false, nil, replaced, Context(shard: shard, key: key, entry: entry))
                }
            }
        }
        _ = consume replaced  // freed after the lock
        notify?()
        if answerNow { waiter.continuation?.resume(returning: .failure(waiter.cancellation)) }
        if let start { self.start(work, context: start, priority: priority) }
    }

    /// Runs `work` in a task of its own, started after the lock. On Linux it begins at once, on
    /// this thread of the global executor, and leaves it at its first suspension (a work that the
    /// caches answer never suspends): it saves the hop through the executor that a detached task
    /// takes first, about a third of the pipeline's own cost of a request answered without the
    /// network (Benchmarks/README.md). The task is kept in the entry so that the last waiter
    /// leaving cancels it; if they all left before it was kept (or it has finished already), it is
    /// cancelled here.
    private func start(
        _ work: @escaping @Sendable (Context) async throws(ImagePipeline.Error) -> Value, context: Context,
        priority: ImageRequest.Priority
    ) {
        let operation: @Sendable () async -> Void = {
            let outcome: Outcome
            do throws(ImagePipeline.Error) {
                outcome = .success(try await work(context))
            } catch {
                outcome = .failure(error)
            }
            self.finish(context, outcome: outcome)
        }
        #if os(Linux)
            let task = Task.immediateDetached(priority: priority.taskPriority, operation: operation)
        #else
            let task = Task.detached(priority: priority.taskPriority, operation: operation)
        #endif
        let kept = context.shard.state.withLock { _ -> Bool in
            guard !context.entry.isRemoved else { return false }
            context.entry.task = task
            return true
        }
        if !kept { task.cancel() }
    }

    private func leave(shard: Shard, key: Key, id: UInt64) {
        typealias Leaving = (SharedWorkStateMachine<Waiter>.RemoveAction, (@Sendable () -> Void)?, Leftovers?)
        let (action, notify, removed): Leaving = shard.state.withLock { state in
            guard let entry = state.entries[key] else { return (.none, nil, nil) }
            let before = entry.machine.priority
            let action = entry.machine.remove(id: id)
            if case .cancelWaiter(let waiter) = action { entry.count(waiter, -1) }
            if case .cancelWaiterAndWork = action { return (action, nil, state.remove(key)) }
            guard let after = entry.machine.priority, after != before, let observer = entry.priorityObserver else {
                return (action, nil, nil)
            }
            return (action, { observer(after) }, nil)
        }
        notify?()
        removed?.task?.cancel()
        removed?.kept?.cancel()
        _ = consume removed  // what the abandoned entry held: freed after the lock, before the waiter resumes
        switch action {
        case .none:
            break
        case .cancelWaiter(let waiter), .cancelWaiterAndWork(let waiter):
            waiter.continuation?.resume(returning: .failure(waiter.cancellation))
        }
    }

    private func finish(_ context: Context, outcome: Outcome) {
        typealias Finishing = (SharedWorkStateMachine<Waiter>.Answered?, Leftovers?)
        let (waiters, removed): Finishing = context.shard.state.withLock { state in
            guard !context.entry.isRemoved else { return (nil, nil) }
            return (context.entry.machine.finish(), state.remove(context.key))
        }
        // What the entry held (its task, its priority observer and what they hold) is freed here:
        // after the lock, and before any waiter resumes, so a caller never sees what the work kept
        // still alive.
        removed?.kept?.cancel()
        _ = consume removed
        guard let waiters else { return }
        for waiter in waiters { waiter.continuation?.resume(returning: outcome) }
    }
}
