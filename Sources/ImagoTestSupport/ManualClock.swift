import Imago


/// A clock that moves only when a test tells it to, so code that waits (time-to-live, retry
/// back-off, timeouts) can be tested instantly and deterministically.
///
/// `sleep(until:)` suspends until ``advance(by:)`` or ``advance(to:)`` moves the clock to or past
/// the deadline, or until the sleeping task is cancelled (then it throws `CancellationError`).
/// ``waitForSleepers(count:)`` lets a test wait, without timing, until the code under test has
/// started sleeping.
public final class ManualClock: Clock, Sendable {
    /// A point on a ``ManualClock``: the time advanced since the clock was created.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the clock's start.
        public var offset: Duration

        /// The instant `offset` after the clock's start.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Earlier instants sort first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// `ManualClock.Instant(1.5 seconds)`.
        public var description: String { "ManualClock.Instant(\(offset))" }
    }

    /// One call to `sleep`, from its start until it returns or throws.
    private enum Sleep {
        /// Started; its continuation is not registered yet.
        case starting
        /// Cancelled before its continuation was registered.
        case cancelled
        /// Suspended until `deadline`.
        case waiting(deadline: Instant, CheckedContinuation<Void, any Error>)
    }

    private struct Watcher {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleeps: [UInt64: Sleep] = [:]
        var watchers: [Watcher] = []
        var nextID: UInt64 = 0

        var sleeperCount: Int {
            sleeps.values.count { if case .waiting = $0 { true } else { false } }
        }

        /// Removes and returns the watchers satisfied by the current number of sleepers.
        mutating func satisfiedWatchers() -> [Watcher] {
            let sleepers = sleeperCount
            let ready = watchers.filter { sleepers >= $0.count }
            watchers.removeAll { sleepers >= $0.count }
            return ready
        }
    }

    private let state = Locked(State())

    /// A clock at offset zero.
    public init() {}

    /// The current instant: it moves only with ``advance(by:)``.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: the clock has no granularity.
    public var minimumResolution: Duration { .zero }

    /// The number of tasks currently suspended in ``sleep(until:tolerance:)``.
    public var sleeperCount: Int { state.withLock { $0.sleeperCount } }

    /// Suspends until the clock reaches `deadline`; returns at once if it already has.
    ///
    /// - Throws: `CancellationError` if the task is cancelled before the deadline is reached.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.sleeps[state.nextID] = .starting
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait([Watcher]), resume, cancel }
                let outcome: Outcome = state.withLock { state in
                    if case .cancelled = state.sleeps[id] {
                        state.sleeps[id] = nil
                        return .cancel
                    }
                    if deadline <= state.now {
                        state.sleeps[id] = nil
                        return .resume
                    }
                    state.sleeps[id] = .waiting(deadline: deadline, continuation)
                    return .wait(state.satisfiedWatchers())
                }
                switch outcome {
                case .wait(let watchers): watchers.forEach { $0.continuation.resume() }
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
                switch state.sleeps[id] {
                case .starting:
                    state.sleeps[id] = .cancelled
                    return nil
                case .waiting(_, let continuation):
                    state.sleeps[id] = nil
                    return continuation
                case .cancelled, nil:
                    return nil
                }
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline has come, in
    /// deadline order.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "ManualClock cannot go backwards (advance(by: \(duration)))")
        advance { $0.advanced(by: duration) }
    }

    /// Moves the clock forward to `instant`; nothing moves if the clock is already there or later.
    public func advance(to instant: Instant) {
        advance { max($0, instant) }
    }

    /// Returns once at least `count` tasks are sleeping on this clock, so a test can advance the
    /// clock knowing the code under test is waiting on it. It does not observe cancellation.
    public func waitForSleepers(count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isSatisfied = state.withLock { state in
                if state.sleeperCount >= count { return true }
                state.watchers.append(Watcher(count: count, continuation: continuation))
                return false
            }
            if isSatisfied { continuation.resume() }
        }
    }

    private func advance(_ move: (Instant) -> Instant) {
        let due: [(deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = state.withLock { state in
            state.now = move(state.now)
            var due: [(deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = []
            for (id, sleep) in state.sleeps {
                guard case .waiting(let deadline, let continuation) = sleep, deadline <= state.now else { continue }
                state.sleeps[id] = nil
                due.append((deadline, continuation))
            }
            return due.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
