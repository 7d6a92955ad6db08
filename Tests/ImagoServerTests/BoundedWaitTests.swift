import Foundation
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoServer

/// ``BoundedWait`` on a manual clock: the operation's value or error when it comes in time, the
/// time limit or the caller's cancellation otherwise, even for an operation that ignores
/// cancellation.
@Suite struct BoundedWaitTests {
    /// An operation that waits until the test opens it, ignoring cancellation.
    final class Gate: Sendable {
        private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let isOpen = state.withLock { state in
                    if !state.isOpen { state.waiters.append(continuation) }
                    return state.isOpen
                }
                if isOpen { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.isOpen = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
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
        let finished = Mutex(false)
        let wait = Task {
            await BoundedWait.run(within: .seconds(5), clock: clock) {
                await gate.wait()
                finished.withLock { $0 = true }
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
        #expect(!finished.withLock { $0 }, "the operation was left behind, not awaited")
        gate.open()
        #expect(await eventually(within: .seconds(10)) { finished.withLock { $0 } })
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
