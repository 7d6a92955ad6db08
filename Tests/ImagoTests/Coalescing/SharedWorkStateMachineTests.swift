import Testing

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
        #expect(machine.finish() == ["b"])
        #expect(machine.remove(id: 2) == .none)
        #expect(machine.add(id: 4, waiter: "d", priority: .normal) == .closed)
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
}
