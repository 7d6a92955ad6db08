#if os(Linux)
import Testing

@testable import ImagoServer

@Suite struct AdmissionGateTests {
    typealias Gate = AdmissionGate<Int>

    /// The ticket of a request told to wait, or `nil` if it was not.
    static func ticket(_ arrival: Gate.Arrival) -> Gate.Ticket? {
        if case .wait(let ticket) = arrival { return ticket }
        return nil
    }

    @Test func runsWaitsThenSheds() {
        var gate = Gate(maximumRunning: 2, maximumWaiting: 1)
        #expect(gate.arrive(1) == .run)
        #expect(gate.arrive(2) == .run)
        #expect(Self.ticket(gate.arrive(3)) != nil)
        #expect(gate.arrive(4) == .shed)
        #expect(gate.leave() == 3)  // the slot passes to the waiter
        #expect(gate.running == 2)
        #expect(Self.ticket(gate.arrive(5)) != nil)
        #expect(gate.leave() == 5)
        #expect(gate.leave() == nil)
        #expect(gate.leave() == nil)
        #expect(gate.running == 0)
        #expect(gate.leave() == nil)
        #expect(gate.running == 0)
    }

    @Test func keepsArrivalOrderOverManyWaiters() {
        var gate = Gate(maximumRunning: 1, maximumWaiting: 1000)
        #expect(gate.arrive(-1) == .run)
        for index in 0..<500 { #expect(Self.ticket(gate.arrive(index)) != nil) }
        for index in 0..<500 { #expect(gate.leave() == index) }
        #expect(gate.waitingCount == 0)
    }

    /// A waiter whose client has gone leaves the queue at once: it takes no slot, it never gets
    /// one, its place in the queue is free for a newcomer, and the others keep their order.
    @Test func anAbandonedWaiterLeavesWithoutTakingASlot() throws {
        var gate = Gate(maximumRunning: 1, maximumWaiting: 3)
        #expect(gate.arrive(0) == .run)
        let first = try #require(Self.ticket(gate.arrive(1)))
        let second = try #require(Self.ticket(gate.arrive(2)))
        _ = try #require(Self.ticket(gate.arrive(3)))
        #expect(gate.arrive(4) == .shed)
        #expect(gate.abandon(second) == 2, "the waiter is handed back, to be told it was abandoned")
        #expect(gate.waitingCount == 2)
        #expect(gate.running == 1, "no slot was taken or given")
        #expect(gate.abandon(second) == nil, "abandoned once")
        #expect(Self.ticket(gate.arrive(5)) != nil, "its place in the queue is free")
        #expect(gate.leave() == 1)
        #expect(gate.abandon(first) == nil, "its turn came first: it holds a slot, which it gives back by leaving")
        #expect(gate.leave() == 3)
        #expect(gate.leave() == 5)
        #expect(gate.leave() == nil)
        #expect(gate.running == 0)
        #expect(gate.waitingCount == 0)
    }

    /// Every waiter abandoned, in any order, across the queue's compaction: the queue empties,
    /// and the running requests' slots are freed by their own leaving only.
    @Test(arguments: [0, 1, 7])
    func abandoningEveryWaiterEmptiesTheQueue(seed: Int) throws {
        var gate = Gate(maximumRunning: 2, maximumWaiting: 300)
        #expect(gate.arrive(-1) == .run)
        #expect(gate.arrive(-2) == .run)
        // Waiters that run first move the queue's head past its compaction point (64).
        var tickets: [Gate.Ticket] = []
        for index in 0..<300 { tickets.append(try #require(Self.ticket(gate.arrive(index)))) }
        for index in 0..<100 { #expect(gate.leave() == index) }
        let left = Array(tickets[100...])
        // A fixed shuffle per seed (no randomness in a test that must fail the same way twice).
        let order = left.indices.sorted { ($0 * 7_919 + seed * 104_729) % 211 < ($1 * 7_919 + seed * 104_729) % 211 }
        for index in order {
            #expect(gate.abandon(left[index]) == 100 + (index - left.startIndex))
        }
        #expect(gate.waitingCount == 0)
        for ticket in tickets { #expect(gate.abandon(ticket) == nil) }
        #expect(gate.running == 2)
        #expect(gate.leave() == nil)
        #expect(gate.leave() == nil)
        #expect(gate.running == 0)
    }
}
#endif
