import ImagoTestSupport

/// Awaits `task` while moving `clock` forward by `step` whenever something sleeps on it, so code
/// that backs off or waits on the clock runs to its end at once. Bounded: gives up after 120 s of
/// real time, cancelling the task.
func drive<T: Sendable>(
    _ clock: ManualClock, by step: Duration = .seconds(1), until task: Task<T, any Error>
) async -> Result<T, any Error> {
    let driver = Task {
        let realClock = ContinuousClock()
        let deadline = realClock.now + .seconds(120)  // a bound for a hung test, generous for a loaded machine
        while !Task.isCancelled {
            if clock.sleeperCount > 0 { clock.advance(by: step) }
            if realClock.now > deadline {
                task.cancel()
                return
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
    let result = await task.result
    driver.cancel()
    return result
}
