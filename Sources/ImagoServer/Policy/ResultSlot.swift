import Synchronization

/// One result handed to one waiter exactly once, whichever comes first: the result (or the
/// cancellation that stands for it) or the waiter. Later results are dropped.
final class ResultSlot<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, any Error>)
        case filled(Result<Value, any Error>)
        case delivered
    }

    private let state = Mutex(State.empty)

    /// Hands the result to `continuation` now if it has come, else when it comes.
    func wait(_ continuation: CheckedContinuation<Value, any Error>) {
        let ready = state.withLock { state -> Result<Value, any Error>? in
            switch state {
            case .empty:
                state = .waiting(continuation)
                return nil
            case .filled(let result):
                state = .delivered
                return result
            case .waiting, .delivered:
                return .failure(CancellationError())
            }
        }
        if let ready { continuation.resume(with: ready) }
    }

    /// Delivers `result` unless one was delivered or stored already.
    func fill(_ result: Result<Value, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .empty:
                state = .filled(result)
                return nil
            case .waiting(let continuation):
                state = .delivered
                return continuation
            case .filled, .delivered:
                return nil
            }
        }
        waiter?.resume(with: result)
    }
}
