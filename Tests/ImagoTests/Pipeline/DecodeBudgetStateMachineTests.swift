import Testing

@testable import Imago

/// The decisions of the decode budget, without timing.
@Suite("pipeline.decodeBudget")
struct DecodeBudgetStateMachineTests {
    @Test("decodes start while their bytes fit and wait, in order, when they do not")
    func admitsInOrder() {
        var machine = DecodeBudgetStateMachine(budget: 100)
        #expect(machine.request(id: 1, bytes: 60) == .start)
        #expect(machine.request(id: 2, bytes: 30) == .start)
        #expect(machine.request(id: 3, bytes: 50) == .wait)
        #expect(machine.request(id: 4, bytes: 5) == .wait, "behind a waiting decode, even if it would fit")
        #expect(machine.bytesInUse == 90 && machine.waitingCount == 2)
        #expect(machine.release(bytes: 30) == [], "60 + 50 is over")
        #expect(machine.release(bytes: 60) == [3, 4])
        #expect(machine.bytesInUse == 55 && machine.peakBytes == 90)
    }

    @Test("a decode larger than the whole budget runs alone")
    func largerThanTheBudgetRunsAlone() {
        var machine = DecodeBudgetStateMachine(budget: 100)
        #expect(machine.request(id: 1, bytes: 10) == .start)
        #expect(machine.request(id: 2, bytes: 500) == .wait)
        #expect(machine.request(id: 3, bytes: 10) == .wait)
        #expect(machine.release(bytes: 10) == [2], "nothing else runs: the large one starts")
        #expect(machine.running == 1 && machine.bytesInUse == 500)
        #expect(machine.release(bytes: 500) == [3])
        #expect(machine.peakBytes == 500)
        var idle = DecodeBudgetStateMachine(budget: 100)
        #expect(idle.request(id: 1, bytes: 1_000) == .start, "alone at once when idle")
    }

    @Test("a waiting decode that gives up lets the ones behind it start")
    func cancellation() {
        var machine = DecodeBudgetStateMachine(budget: 100)
        #expect(machine.request(id: 1, bytes: 80) == .start)
        #expect(machine.request(id: 2, bytes: 50) == .wait)
        #expect(machine.request(id: 3, bytes: 20) == .wait)
        let cancelled = machine.cancel(id: 2)
        #expect(cancelled.wasWaiting && cancelled.started == [3])
        #expect(machine.cancel(id: 9).wasWaiting == false)
        #expect(machine.bytesInUse == 100)
    }
}
