
/// Runs downloads at most `maximumConcurrent` at a time, the most urgent first.
///
/// Work waits for a slot without blocking a thread; a caller cancelled while waiting leaves the
/// queue at once. The rules live in `SchedulerQueue`; this type only parks and resumes tasks.
package final class Scheduler: Sendable {
    private struct State {
        var queue: SchedulerQueue
        var parked: [SchedulerQueue.ID: UnsafeContinuation<Bool, Never>] = [:]
        var nextID: SchedulerQueue.ID = 0
    }

    private let state: Locked<State>

    /// A scheduler with `maximumConcurrent` slots.
    package init(maximumConcurrent: Int) {
        state = Locked(State(queue: SchedulerQueue(maximumConcurrent: maximumConcurrent)))
    }

    /// A handle on one job's place in the queue, to change its priority while it waits.
    package struct Ticket: Sendable {
        fileprivate let id: SchedulerQueue.ID
        fileprivate let scheduler: Scheduler

        /// Moves the job to `priority` if it still waits.
        package func updatePriority(_ priority: ImageRequest.Priority) {
            scheduler.state.withLock { $0.queue.updatePriority(id, to: priority) }
        }
    }

    /// Jobs running now.
    package var activeCount: Int { state.withLock { $0.queue.running.count } }
    /// Jobs waiting for a slot.
    package var queuedCount: Int { state.withLock { $0.queue.waitingCount } }

    /// Waits for a slot, runs `operation`, and frees the slot.
    ///
    /// - Parameter priority: the job's place in the queue; more urgent jobs start first.
    /// - Parameter cancellation: the error thrown when the calling task is cancelled while waiting.
    /// - Parameter onTicket: called once, before waiting, with a ticket for priority changes.
    /// - Parameter operation: the work to run once a slot is free.
    /// - Throws: `cancelled` when the calling task is cancelled while waiting, or what `operation` throws.
    package func run<Value: Sendable>(
        priority: ImageRequest.Priority, cancellation: ImagePipeline.Error,
        onTicket: (Ticket) -> Void = { _ in },
        _ operation: () async throws(ImagePipeline.Error) -> Value
    ) async throws(ImagePipeline.Error) -> Value {
        // A free slot with nobody waiting starts the job at once: parking the task only to resume
        // it would send it through the executor for nothing.
        let isCancelled = Task.isCancelled
        let (id, startedAtOnce) = state.withLock { state -> (SchedulerQueue.ID, Bool) in
            state.nextID += 1
            return (state.nextID, !isCancelled && state.queue.startIfFree(state.nextID))
        }
        onTicket(Ticket(id: id, scheduler: self))
        let admitted = startedAtOnce ? true : await park(id, priority: priority)
        guard admitted else { throw cancellation }
        defer { release(id) }
        return try await operation()
    }

    /// Queues job `id` and waits for its slot: true once it may run, false when the calling task
    /// was cancelled first (the job has then left the queue).
    private func park(_ id: SchedulerQueue.ID, priority: ImageRequest.Priority) async -> Bool {
        await withTaskCancellationHandler {
            // Unsafe, not checked: every continuation is resumed once, by whoever takes it out
            // of `parked` under the lock.
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
                let (refused, started) = state.withLock { state -> (Bool, [UnsafeContinuation<Bool, Never>]) in
                    // Checked under the lock that `onCancel` takes: a cancellation is either seen
                    // here or finds the job parked.
                    if Task.isCancelled { return (true, []) }
                    state.parked[id] = continuation
                    let started = state.queue.enqueue(id, priority: priority)
                    return (false, started.compactMap { state.parked.removeValue(forKey: $0) })
                }
                if refused { continuation.resume(returning: false) }
                for waiter in started { waiter.resume(returning: true) }
            }
        } onCancel: {
            let (own, started) = state.withLock { state in
                guard let own = state.parked.removeValue(forKey: id) else {
                    return (UnsafeContinuation<Bool, Never>?.none, [UnsafeContinuation<Bool, Never>]())
                }
                return (own, state.queue.cancel(id).compactMap { state.parked.removeValue(forKey: $0) })
            }
            own?.resume(returning: false)
            for waiter in started { waiter.resume(returning: true) }
        }
    }

    private func release(_ id: SchedulerQueue.ID) {
        let started = state.withLock { state in
            state.queue.finish(id).compactMap { state.parked.removeValue(forKey: $0) }
        }
        for waiter in started { waiter.resume(returning: true) }
    }
}
