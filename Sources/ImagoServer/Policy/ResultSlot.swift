#if os(Linux)
import Synchronization

/// One result handed to one waiter exactly once, whichever comes first: the result (or the
/// cancellation or timeout that stands for it) or the waiter. Results after the first are
/// dropped, so a lookup that finishes after its caller left changes nothing.
///
/// Lock-free, on two atomics (it is filled from lookup threads that must never block): the first ``fill(_:)`` claims the slot, stores
/// its result, then publishes it; ``wait(_:)`` stores the continuation, then publishes it; of the
/// two publications exactly one finds the slot empty, and the other side then reads what the
/// first published and resumes the continuation.
final class ResultSlot<Value: Sendable>: @unchecked Sendable {
    private static var empty: Int { 0 }
    private static var waiting: Int { 1 }
    private static var filled: Int { 2 }

    /// `empty`, then `waiting` or `filled`, whichever is published first.
    private let state = Atomic(0)
    /// Set by the first ``fill(_:)``; later ones return at once.
    private let claimed = Atomic(false)
    /// Written once by ``wait(_:)`` before it publishes `waiting`; read by ``fill(_:)`` only
    /// after it has seen that.
    private var continuation: CheckedContinuation<Value, any Error>?
    /// Written once by the first ``fill(_:)`` before it publishes `filled`; read by
    /// ``wait(_:)`` only after it has seen that.
    private var result: Result<Value, any Error>?

    /// Hands the result to `continuation` now if it has come, else when it comes. Called once.
    func wait(_ continuation: CheckedContinuation<Value, any Error>) {
        self.continuation = continuation
        let (published, found) = state.compareExchange(expected: Self.empty, desired: Self.waiting, ordering: .acquiringAndReleasing)
        guard !published, found == Self.filled else { return }
        continuation.resume(with: result ?? .failure(CancellationError()))
    }

    /// Delivers `result` unless a result came first.
    func fill(_ result: Result<Value, any Error>) {
        guard !claimed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        self.result = result
        let (published, found) = state.compareExchange(expected: Self.empty, desired: Self.filled, ordering: .acquiringAndReleasing)
        guard !published, found == Self.waiting, let continuation else { return }
        continuation.resume(with: result)
    }
}
#endif
