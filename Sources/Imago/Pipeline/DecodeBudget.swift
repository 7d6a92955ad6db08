
/// Bytes of pixels that decodes under way may hold together
/// (``ImagePipeline/Configuration/maximumDecodingBytes``): a decode reserves its estimate before it
/// starts and waits while the others hold too much (``DecodeBudgetStateMachine`` decides).
final class DecodeBudget: Sendable {
    private struct State {
        var machine: DecodeBudgetStateMachine
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state: Locked<State>

    init(budget: Int) {
        state = Locked(State(machine: DecodeBudgetStateMachine(budget: budget)))
    }

    /// Runs `body` once `bytes` fit in the budget, and gives them back when it returns. The wait is
    /// not cancelled (decodes are shared work; a cancelled caller's decode is checked after).
    func withReservation<T, E: Error>(bytes: Int, _ body: () async throws(E) -> T) async throws(E) -> T {
        await reserve(bytes)
        defer { release(bytes) }
        return try await body()
    }

    private func reserve(_ bytes: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let starts = state.withLock { state in
                let id = state.nextID
                state.nextID += 1
                switch state.machine.request(id: id, bytes: bytes) {
                case .start:
                    return true
                case .wait:
                    state.waiters[id] = continuation
                    return false
                }
            }
            if starts { continuation.resume() }
        }
    }

    private func release(_ bytes: Int) {
        let resumed = state.withLock { state in
            state.machine.release(bytes: bytes).compactMap { state.waiters.removeValue(forKey: $0) }
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Bytes reserved by decodes running now, and the most ever reserved at once.
    var bytes: (now: Int, peak: Int) {
        state.withLock { ($0.machine.bytesInUse, $0.machine.peakBytes) }
    }
}
