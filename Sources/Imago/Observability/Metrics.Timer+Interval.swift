import Metrics

extension Metrics.Timer {
    /// Records the time from `start` to `now`.
    func recordInterval(since start: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        let elapsed = (now - start).components
        recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
    }
}
