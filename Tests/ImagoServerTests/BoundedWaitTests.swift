#if os(Linux)
import Foundation
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoServer

/// ``BoundedWait`` on a manual clock: the operation's value or error when it comes in time, the
/// time limit or the caller's cancellation otherwise, even for an operation that ignores
/// cancellation.
@Suite struct BoundedWaitTests {
    /// What an operation waits for until the test opens it, ignoring cancellation (one waiter).
    final class Gate: Sendable {
        private let slot = ResultSlot<Void>()

        func wait() async {
            _ = try? await withCheckedThrowingContinuation { slot.wait($0) }
        }

        func open() {
            slot.fill(.success(()))
        }
    }

    struct Failure: Error {}

    @Test func returnsTheValueOrErrorThatComesInTime() async {
        let clock = ManualClock()
        guard case .value(7) = await BoundedWait.run(within: .seconds(1), clock: clock, { 7 }) else {
            Issue.record("expected the value")
            return
        }
        guard case .failed(let error) = await BoundedWait.run(within: .seconds(1), clock: clock, { () throws -> Int in throw Failure() }) else {
            Issue.record("expected the error")
            return
        }
        #expect(error is Failure)
    }

    @Test func timesOutThoughTheOperationIgnoresCancellation() async {
        let clock = ManualClock()
        let gate = Gate()
        let finished = Atomic(false)
        let wait = Task {
            await BoundedWait.run(within: .seconds(5), clock: clock) {
                await gate.wait()
                finished.store(true, ordering: .sequentiallyConsistent)
                return 1
            }
        }
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(4))
        clock.advance(by: .seconds(1))
        guard case .timedOut = await wait.value else {
            Issue.record("expected a timeout")
            return
        }
        let finishedEarly = finished.load(ordering: .sequentiallyConsistent)
        #expect(!finishedEarly, "the operation was left behind, not awaited")
        gate.open()
        #expect(await eventually(within: .seconds(10)) { finished.load(ordering: .sequentiallyConsistent) })
    }

    @Test func stopsWaitingWhenTheCallerIsCancelled() async {
        let clock = ManualClock()
        let gate = Gate()
        defer { gate.open() }
        let wait = Task {
            await BoundedWait.run(within: .seconds(5), clock: clock) {
                await gate.wait()
                return 1
            }
        }
        await clock.waitForSleepers(count: 1)
        wait.cancel()
        guard case .cancelled = await wait.value else {
            Issue.record("expected the cancellation")
            return
        }
    }
}
#endif
