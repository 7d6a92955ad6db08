#if os(Linux)
import Foundation
import Imago

/// Runs blocking calls (getaddrinfo) each on a thread of its own, at most ``limit`` at a time and
/// at most ``perKeyLimit`` for one key (a host name), and lets the waiting task go at once when it
/// is cancelled, even while the call still blocks.
///
/// A call the waiter has left keeps its thread until the system returns; its result is dropped
/// then. It still counts against both limits until it returns, so a resolver that hangs cannot
/// pile up threads: beyond a limit ``run(key:_:)`` refuses at once. The limit per key keeps one
/// name whose DNS server never answers from taking every slot: other names still resolve. Own
/// threads rather than Dispatch's global queues, so that hanging lookups never take the threads
/// other work is queued on.
final class BlockingLookups: Sendable {
    /// The most calls blocked at once.
    let limit: Int
    /// The most calls blocked at once for one key.
    let perKeyLimit: Int
    /// Calls blocked now, in all and by key (a key leaves the table when its count falls to zero,
    /// so the table holds at most ``limit`` keys).
    private let counts = Locked(Counts())

    private struct Counts {
        var total = 0
        var byKey: [String: Int] = [:]
    }

    /// Why ``run(key:_:)`` refused a call.
    enum Refusal: Error, Equatable {
        /// ``limit`` calls are blocked.
        case total
        /// ``perKeyLimit`` calls for the same key are blocked.
        case key
    }

    init(limit: Int, perKeyLimit: Int) {
        self.limit = max(1, limit)
        self.perKeyLimit = max(1, min(perKeyLimit, self.limit))
    }

    /// Calls blocked now, including those whose waiter has left.
    var outstanding: Int { counts.withLock { $0.total } }

    /// Calls blocked now for `key`.
    func outstanding(for key: String) -> Int { counts.withLock { $0.byKey[key] ?? 0 } }

    /// The result of `call`, run on a new thread; `.failure` saying which limit is reached when
    /// ``limit`` calls, or ``perKeyLimit`` calls for `key`, are already blocked.
    ///
    /// - Throws: `call`'s error, or `CancellationError` as soon as the calling task is cancelled.
    func run<Value: Sendable>(key: String, _ call: @escaping @Sendable () throws -> Value) async throws -> Result<Value, Refusal> {
        try Task.checkCancellation()
        let refusal = counts.withLock { counts -> Refusal? in
            guard counts.total < limit else { return .total }
            guard counts.byKey[key, default: 0] < perKeyLimit else { return .key }
            counts.total += 1
            counts.byKey[key, default: 0] += 1
            return nil
        }
        if let refusal { return .failure(refusal) }
        let slot = ResultSlot<Value>()
        let value = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                slot.wait(continuation)
                Thread.detachNewThread {
                    let result = Result { try call() }
                    self.counts.withLock { counts in
                        counts.total -= 1
                        let left = counts.byKey[key, default: 1] - 1
                        counts.byKey[key] = left > 0 ? left : nil
                    }
                    slot.fill(result)
                }
            }
        } onCancel: {
            slot.fill(.failure(CancellationError()))
        }
        return .success(value)
    }
}
#endif
