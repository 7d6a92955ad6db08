#if os(Linux)

/// Waits for an async operation at most a time limit, and no longer than the waiting task wants
/// (cancellation), whether or not the operation itself stops: ``GuardedDataLoader`` waits for a
/// host's addresses this way, so a resolver that hangs cannot hold a request past its deadline.
///
/// The operation runs in a task of its own; when the wait ends first, that task is cancelled and
/// left to finish by itself, and whatever it returns later is dropped.
enum BoundedWait {
    /// How a wait ended.
    enum Outcome<Value: Sendable>: Sendable {
        /// The operation returned in time.
        case value(Value)
        /// The operation threw in time.
        case failed(any Error)
        /// The limit ran out first.
        case timedOut
        /// The waiting task was cancelled first.
        case cancelled
    }

    /// Runs `operation` and waits for it at most `limit` on `clock`.
    static func run<Value: Sendable>(
        within limit: Duration, clock: any Clock<Duration> = ContinuousClock(),
        _ operation: @escaping @Sendable () async throws -> Value
    ) async -> Outcome<Value> {
        guard !Task.isCancelled else { return .cancelled }
        let slot = ResultSlot<Outcome<Value>>()
        let work = Task {
            do {
                slot.fill(.success(.value(try await operation())))
            } catch {
                slot.fill(.success(Task.isCancelled && error is CancellationError ? .cancelled : .failed(error)))
            }
        }
        let timer = Task {
            // A cancelled sleep means the wait is over already; only a sleep that ran out times out.
            guard (try? await clock.sleep(for: limit)) != nil else { return }
            slot.fill(.success(.timedOut))
        }
        let outcome = await withTaskCancellationHandler {
            (try? await withCheckedThrowingContinuation { slot.wait($0) }) ?? .cancelled
        } onCancel: {
            slot.fill(.success(.cancelled))
        }
        work.cancel()
        timer.cancel()
        return outcome
    }
}
#endif
