import Synchronization

/// Runs downloads at most `maximumConcurrent` at a time, the most urgent first.
///
/// Work waits for a slot without blocking a thread; a caller cancelled while waiting leaves the
/// queue at once. The rules live in `SchedulerQueue`; this type only parks and resumes tasks.
package final class Scheduler: Sendable {
    private struct State {
        var queue: SchedulerQueue
        var parked: [SchedulerQueue.ID: CheckedContinuation<Bool, Never>] = [:]
        var nextID: SchedulerQueue.ID = 0
    }

    private let state: Mutex<State>

    /// A scheduler with `maximumConcurrent` slots.
    package init(maximumConcurrent: Int) {
        state = Mutex(State(queue: SchedulerQueue(maximumConcurrent: maximumConcurrent)))
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
        let id = state.withLock { state -> SchedulerQueue.ID in
            state.nextID += 1
            return state.nextID
        }
        onTicket(Ticket(id: id, scheduler: self))
        let admitted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let (refused, started) = state.withLock { state -> (Bool, [CheckedContinuation<Bool, Never>]) in
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
                    return (CheckedContinuation<Bool, Never>?.none, [CheckedContinuation<Bool, Never>]())
                }
                return (own, state.queue.cancel(id).compactMap { state.parked.removeValue(forKey: $0) })
            }
            own?.resume(returning: false)
            for waiter in started { waiter.resume(returning: true) }
        }
        guard admitted else { throw cancellation }
        defer { release(id) }
        return try await operation()
    }

    private func release(_ id: SchedulerQueue.ID) {
        let started = state.withLock { state in
            state.queue.finish(id).compactMap { state.parked.removeValue(forKey: $0) }
        }
        for waiter in started { waiter.resume(returning: true) }
    }
}
