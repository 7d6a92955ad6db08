import Testing
import ImagoTestSupport

@testable import Imago

@Suite("Shared work state machine")
struct SharedWorkStateMachineTests {
    typealias Machine = SharedWorkStateMachine<String>

    @Test("The first waiter starts the work; later ones join it")
    func firstStartsOthersJoin() {
        var machine = Machine()
        #expect(machine.add(id: 1, waiter: "a", priority: .normal) == .start)
        #expect(machine.add(id: 2, waiter: "b", priority: .normal) == .join)
        #expect(machine.add(id: 3, waiter: "c", priority: .low) == .join)
        #expect(machine.currentWaiters == ["a", "b", "c"])
    }

    @Test("A waiter that leaves is answered alone while others remain")
    func oneLeaves() {
        var machine = Machine()
        _ = machine.add(id: 1, waiter: "a", priority: .normal)
        _ = machine.add(id: 2, waiter: "b", priority: .normal)
        #expect(machine.remove(id: 1) == .cancelWaiter("a"))
        #expect(machine.currentWaiters == ["b"])
        #expect(!machine.isClosed)
    }

    @Test("The last waiter to leave cancels the work and closes it to newcomers")
    func lastLeaves() {
        var machine = Machine()
        _ = machine.add(id: 1, waiter: "a", priority: .normal)
        _ = machine.add(id: 2, waiter: "b", priority: .normal)
        _ = machine.remove(id: 2)
        #expect(machine.remove(id: 1) == .cancelWaiterAndWork("a"))
        #expect(machine.isClosed)
        #expect(machine.add(id: 3, waiter: "c", priority: .normal) == .closed)
    }

    @Test("Leaving twice, or after the work finished, does nothing")
    func staleLeave() {
        var machine = Machine()
        _ = machine.add(id: 1, waiter: "a", priority: .normal)
        _ = machine.add(id: 2, waiter: "b", priority: .normal)
        #expect(machine.remove(id: 1) == .cancelWaiter("a"))
        #expect(machine.remove(id: 1) == .none)
        #expect(Array(machine.finish()) == ["b"])
        #expect(machine.remove(id: 2) == .none)
        #expect(machine.add(id: 4, waiter: "d", priority: .normal) == .closed)
    }

    @Test("A work run in its first waiter's task: finished for those left, or handed over when it stopped because its runner left")
    func runEnds() {
        func machine(_ ids: [UInt64]) -> Machine {
            var machine = Machine()
            for id in ids { _ = machine.add(id: id, waiter: "w\(id)", priority: .normal) }
            return machine
        }
        // The runner stayed: everyone, the runner too, gets the outcome, whatever it is.
        var stayed = machine([1, 2])
        guard case .finish(let all, runnerStayed: true) = stayed.endRun(runner: 1, stoppedByLeaving: false) else {
            Issue.record("expected finish")
            return
        }
        #expect(Array(all) == ["w1", "w2"] && stayed.isClosed)
        // The runner left and the work stopped with it: the others keep waiting for a new run.
        var handed = machine([1, 2, 3])
        _ = handed.remove(id: 1)
        guard case .handOver = handed.endRun(runner: 1, stoppedByLeaving: true) else {
            Issue.record("expected a hand-over")
            return
        }
        #expect(!handed.isClosed && handed.currentWaiters == ["w2", "w3"])
        #expect(handed.add(id: 4, waiter: "w4", priority: .normal) == .join)
        // The runner left but the work got its result all the same: the others take it.
        var finished = machine([1, 2])
        _ = finished.remove(id: 1)
        guard case .finish(let rest, runnerStayed: false) = finished.endRun(runner: 1, stoppedByLeaving: false) else {
            Issue.record("expected finish")
            return
        }
        #expect(Array(rest) == ["w2"])
        // Nobody is left: nothing to hand over.
        var abandoned = machine([1])
        _ = abandoned.remove(id: 1)
        guard case .finish(let none, runnerStayed: false) = abandoned.endRun(runner: 1, stoppedByLeaving: true) else {
            Issue.record("expected finish")
            return
        }
        #expect(none.isEmpty)
    }

    @Test("The shared priority is the highest waiter's and follows changes")
    func priority() {
        var machine = Machine()
        #expect(machine.priority == nil)
        _ = machine.add(id: 1, waiter: "a", priority: .low)
        _ = machine.add(id: 2, waiter: "b", priority: .normal)
        #expect(machine.priority == .normal)
        #expect(machine.updatePriority(id: 1, to: .veryHigh) == .veryHigh)
        #expect(machine.updatePriority(id: 2, to: .high) == nil)  // the maximum did not change
        _ = machine.remove(id: 1)
        #expect(machine.priority == .high)
    }

    @Test("The shared priority is the highest waiter's through any sequence of joins, leaves and changes")
    func priorityFollowsEveryChange() {
        var machine = Machine()
        var random = SplitMix(seed: 27)
        var present: [UInt64: ImageRequest.Priority] = [:]
        var nextID: UInt64 = 1
        for _ in 0..<2_000 {
            let priority = ImageRequest.Priority.allCases[Int(random.next() % 5)]
            switch random.next() % 3 {
            case 0 where !machine.isClosed:
                _ = machine.add(id: nextID, waiter: "w\(nextID)", priority: priority)
                present[nextID] = priority
                nextID += 1
            case 1 where present.count > 1:
                let id = present.keys.sorted()[Int(random.next() % UInt64(present.count))]
                _ = machine.remove(id: id)
                present[id] = nil
            default:
                guard let id = present.keys.sorted().first else { continue }
                let before = present.values.max()
                present[id] = priority
                let changed = machine.updatePriority(id: id, to: priority)
                #expect(changed == (present.values.max() != before ? present.values.max() : nil))
            }
            #expect(machine.priority == present.values.max())
        }
        #expect(!present.isEmpty)
        _ = machine.finish()
        #expect(machine.priority == nil)
    }
}
