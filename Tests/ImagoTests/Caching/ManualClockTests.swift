import ImagoTestSupport
import Testing

@Suite("ManualClock")
struct ManualClockTests {
    @Test func sleepEndsOnlyWhenTheClockReachesTheDeadline() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 0)
        try await sleeper.value
        #expect(clock.now == ManualClock.Instant(offset: .seconds(5)))
    }

    @Test func deadlineInThePastReturnsAtOnce() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(10))
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)), tolerance: nil)
        try await clock.sleep(until: clock.now, tolerance: nil)
        #expect(clock.sleeperCount == 0)
    }

    @Test func advanceWakesOnlyTheSleepersThatAreDue() async throws {
        let clock = ManualClock()
        let short = Task { try await clock.sleep(for: .seconds(5)) }
        let long = Task { try await clock.sleep(for: .seconds(10)) }
        await clock.waitForSleepers(count: 2)
        clock.advance(by: .seconds(5))
        try await short.value
        #expect(clock.sleeperCount == 1)
        clock.advance(to: ManualClock.Instant(offset: .seconds(10)))
        try await long.value
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellationThrowsAndRemovesTheSleeper() async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(count: 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func alreadyCancelledTaskDoesNotSleep() async {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func manySleepersAndCancellationsStayConsistent() async {
        let clock = ManualClock()
        // Keeps time moving until every sleeper has finished, however the tasks interleave.
        let advancer = Task {
            while !Task.isCancelled {
                clock.advance(by: .seconds(1))
                await Task.yield()
            }
        }
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let sleeper = Task { try await clock.sleep(for: .seconds(Double(index % 10 + 1))) }
                    if index.isMultiple(of: 3) { sleeper.cancel() }
                    return (try? await sleeper.value) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        advancer.cancel()
        #expect(outcomes.count == 200)
        #expect(outcomes.filter { $0 }.count >= 200 - 67)
        #expect(clock.sleeperCount == 0)
    }
}
