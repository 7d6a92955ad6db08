import Foundation
import Synchronization

/// Runs blocking calls (getaddrinfo) each on a thread of its own, at most ``limit`` at a time,
/// and lets the waiting task go at once when it is cancelled, even while the call still blocks.
///
/// A call the waiter has left keeps its thread until the system returns; its result is dropped
/// then. It still counts against ``limit`` until it returns, so a resolver that hangs cannot pile
/// up threads: beyond the limit ``run(_:)`` refuses at once. Own threads rather than Dispatch's
/// global queues, so that hanging lookups never take the threads other work is queued on.
final class BlockingLookups: Sendable {
    /// The most calls blocked at once.
    let limit: Int
    private let running = Mutex(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Calls blocked now, including those whose waiter has left.
    var outstanding: Int { running.withLock { $0 } }

    /// The result of `call`, run on a new thread; `nil` when ``limit`` calls are already blocked.
    ///
    /// - Throws: `call`'s error, or `CancellationError` as soon as the calling task is cancelled.
    func run<Value: Sendable>(_ call: @escaping @Sendable () throws -> Value) async throws -> Value? {
        try Task.checkCancellation()
        let admitted = running.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else { return nil }
        let slot = ResultSlot<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                slot.wait(continuation)
                Thread.detachNewThread {
                    let result = Result { try call() }
                    self.running.withLock { $0 -= 1 }
                    slot.fill(result)
                }
            }
        } onCancel: {
            slot.fill(.failure(CancellationError()))
        }
    }
}
