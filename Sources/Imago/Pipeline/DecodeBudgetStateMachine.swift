/// Admission of decodes against a budget of bytes held by decodes under way, as values: the owner
/// (``DecodeBudget``) performs what each call returns, and tests drive it without timing.
///
/// Decodes are admitted in arrival order: one whose bytes fit beside those running starts at once;
/// otherwise it waits, and so does every later one (a large decode is not starved by a stream
/// of small ones). A decode larger than the whole budget starts when nothing else runs, alone.
struct DecodeBudgetStateMachine: Sendable {
    /// What a decode asking to start is told.
    enum Admission: Equatable, Sendable {
        /// Start now; its bytes are counted.
        case start
        /// Wait until ``release(bytes:)`` names it.
        case wait
    }

    /// The budget in bytes.
    let budget: Int
    /// Bytes of the decodes running now.
    private(set) var bytesInUse = 0
    /// The most ``bytesInUse`` has been.
    private(set) var peakBytes = 0
    /// Decodes running now.
    private(set) var running = 0
    /// Decodes waiting, in arrival order.
    private var waiting: [(id: Int, bytes: Int)] = []

    init(budget: Int) {
        self.budget = max(0, budget)
    }

    /// Decodes waiting now.
    var waitingCount: Int { waiting.count }

    /// Decode `id`, which will hold about `bytes`, asks to start.
    mutating func request(id: Int, bytes: Int) -> Admission {
        let bytes = max(0, bytes)
        if waiting.isEmpty, fits(bytes) {
            admit(bytes)
            return .start
        }
        waiting.append((id, bytes))
        return .wait
    }

    /// A decode of `bytes` finished: the waiting decodes that may start now, in order (their bytes
    /// are counted).
    mutating func release(bytes: Int) -> [Int] {
        bytesInUse -= max(0, bytes)
        running -= 1
        return admitWaiting()
    }

    /// Waiting decode `id` gave up: whether it was waiting, and the decodes that may start now
    /// that it no longer holds the queue.
    mutating func cancel(id: Int) -> (wasWaiting: Bool, started: [Int]) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return (false, []) }
        waiting.remove(at: index)
        return (true, admitWaiting())
    }

    private func fits(_ bytes: Int) -> Bool {
        running == 0 || bytes <= budget - bytesInUse
    }

    private mutating func admit(_ bytes: Int) {
        bytesInUse += bytes
        running += 1
        peakBytes = max(peakBytes, bytesInUse)
    }

    private mutating func admitWaiting() -> [Int] {
        var started: [Int] = []
        while let first = waiting.first, fits(first.bytes) {
            waiting.removeFirst()
            admit(first.bytes)
            started.append(first.id)
        }
        return started
    }
}
