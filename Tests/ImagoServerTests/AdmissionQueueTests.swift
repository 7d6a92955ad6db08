#if os(Linux)
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// ``AdmissionQueue`` with real tasks: a waiter leaves at once when its client departs or its
/// task is cancelled, its work never starts, and the slots go on to the others.
@Suite struct AdmissionQueueTests {
    /// Work that runs until `release` and records that it started.
    final class HeldWork: Sendable {
        let started = Locked(0)
        private let gate = Locked<[CheckedContinuation<Void, Never>]?>([])

        func run() async {
            started.withLock { $0 += 1 }
            await withCheckedContinuation { continuation in
                let released = gate.withLock { waiting -> Bool in
                    guard waiting != nil else { return true }
                    waiting?.append(continuation)
                    return false
                }
                if released { continuation.resume() }
            }
        }

        func release() {
            for continuation in gate.withLock({ $0.take() }) ?? [] { continuation.resume() }
        }
    }

    @Test func aWaiterWhoseClientDepartsLeavesAndNeverRuns() async throws {
        let queue = AdmissionQueue(maximumRunning: 1, maximumWaiting: 4)
        let held = HeldWork()
        let holder = Task { await queue.run { await held.run() } }
        #expect(await eventually(within: .seconds(30)) { held.started.withLock { $0 } == 1 })
        let departure = ClientDeparture()
        let gone = HeldWork()
        let waiter = Task { await queue.run(departure: departure) { await gone.run() } }
        let stays = HeldWork()
        let stayer = Task { await queue.run(departure: ClientDeparture()) { await stays.run() } }
        #expect(await eventually(within: .seconds(30)) { queue.counts.waiting == 2 })
        departure.depart()
        guard case .abandoned = await waiter.value else {
            Issue.record("the departed waiter was not abandoned")
            return
        }
        #expect(queue.counts.running == 1 && queue.counts.waiting == 1, "\(queue.counts)")
        held.release()
        _ = await holder.value
        #expect(await eventually(within: .seconds(30)) { stays.started.withLock { $0 } == 1 }, "the next waiter got the slot")
        stays.release()
        guard case .ran = await stayer.value else {
            Issue.record("the waiter that stayed did not run")
            return
        }
        #expect(gone.started.withLock { $0 } == 0, "the departed waiter's work never started")
        #expect(queue.counts.running == 0 && queue.counts.waiting == 0, "\(queue.counts)")
    }

    @Test func aWaiterWhoseTaskIsCancelledLeavesAndNeverRuns() async throws {
        let queue = AdmissionQueue(maximumRunning: 1, maximumWaiting: 4)
        let held = HeldWork()
        let holder = Task { await queue.run { await held.run() } }
        #expect(await eventually(within: .seconds(30)) { held.started.withLock { $0 } == 1 })
        let cancelled = HeldWork()
        let waiter = Task { await queue.run { await cancelled.run() } }
        #expect(await eventually(within: .seconds(30)) { queue.counts.waiting == 1 })
        waiter.cancel()
        guard case .abandoned = await waiter.value else {
            Issue.record("the cancelled waiter was not abandoned")
            return
        }
        #expect(queue.counts.waiting == 0)
        held.release()
        _ = await holder.value
        #expect(cancelled.started.withLock { $0 } == 0)
        #expect(queue.counts.running == 0)
    }

    /// A client that went before its request even queued: the request waits no time at all.
    @Test func aWaiterWhoseClientWentBeforeItArrivedLeavesAtOnce() async throws {
        let queue = AdmissionQueue(maximumRunning: 1, maximumWaiting: 4)
        let held = HeldWork()
        let holder = Task { await queue.run { await held.run() } }
        #expect(await eventually(within: .seconds(30)) { held.started.withLock { $0 } == 1 })
        let departure = ClientDeparture()
        departure.depart()
        guard case .abandoned = await queue.run(departure: departure, { 1 }) else {
            Issue.record("the request of a departed client waited")
            return
        }
        #expect(queue.counts.waiting == 0)
        held.release()
        _ = await holder.value
        #expect(queue.counts.running == 0)
    }
}
#endif
