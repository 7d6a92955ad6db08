#if os(Linux)
import Testing

@testable import ImagoServer

@Suite struct AdmissionGateTests {
    @Test func runsWaitsThenSheds() {
        var gate = AdmissionGate<Int>(maximumRunning: 2, maximumWaiting: 1)
        #expect(gate.arrive(1) == .run)
        #expect(gate.arrive(2) == .run)
        #expect(gate.arrive(3) == .wait)
        #expect(gate.arrive(4) == .shed)
        #expect(gate.leave() == 3)  // the slot passes to the waiter
        #expect(gate.running == 2)
        #expect(gate.arrive(5) == .wait)
        #expect(gate.leave() == 5)
        #expect(gate.leave() == nil)
        #expect(gate.leave() == nil)
        #expect(gate.running == 0)
        #expect(gate.leave() == nil)
        #expect(gate.running == 0)
    }

    @Test func keepsArrivalOrderOverManyWaiters() {
        var gate = AdmissionGate<Int>(maximumRunning: 1, maximumWaiting: 1000)
        #expect(gate.arrive(-1) == .run)
        for index in 0..<500 { #expect(gate.arrive(index) == .wait) }
        for index in 0..<500 { #expect(gate.leave() == index) }
        #expect(gate.waitingCount == 0)
    }
}
#endif
