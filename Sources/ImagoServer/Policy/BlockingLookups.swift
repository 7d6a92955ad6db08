#if os(Linux)
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
    /// Calls blocked now: a count needs no lock.
    private let running = Atomic(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Calls blocked now, including those whose waiter has left.
    var outstanding: Int { running.load(ordering: .acquiring) }

    /// The result of `call`, run on a new thread; `nil` when ``limit`` calls are already blocked.
    ///
    /// - Throws: `call`'s error, or `CancellationError` as soon as the calling task is cancelled.
    func run<Value: Sendable>(_ call: @escaping @Sendable () throws -> Value) async throws -> Value? {
        try Task.checkCancellation()
        var count = running.load(ordering: .relaxed)
        while true {
            guard count < limit else { return nil }
            let (admitted, found) = running.compareExchange(expected: count, desired: count + 1, ordering: .relaxed)
            if admitted { break }
            count = found
        }
        let slot = ResultSlot<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                slot.wait(continuation)
                Thread.detachNewThread {
                    let result = Result { try call() }
                    self.running.subtract(1, ordering: .releasing)
                    slot.fill(result)
                }
            }
        } onCancel: {
            slot.fill(.failure(CancellationError()))
        }
    }
}
#endif
