#if os(Linux)
import Testing

@testable import ImagoServer

/// ``ResultSlot``: one result to one waiter, whichever comes first, later results dropped.
@Suite struct ResultSlotTests {
    @Test func deliversAResultThatCameBeforeTheWaiter() async throws {
        let slot = ResultSlot<Int>()
        slot.fill(.success(1))
        slot.fill(.success(2))
        #expect(try await withCheckedThrowingContinuation { slot.wait($0) } == 1)
    }

    @Test func deliversTheFirstResultToAWaiter() async throws {
        let slot = ResultSlot<Int>()
        async let value = withCheckedThrowingContinuation { slot.wait($0) }
        slot.fill(.success(3))
        slot.fill(.failure(CancellationError()))
        #expect(try await value == 3)
    }

    /// Fills and a wait racing on other threads: the waiter gets exactly one of the results, every
    /// time.
    @Test func racingFillsHandOverOneResult() async throws {
        for round in 0..<500 {
            let slot = ResultSlot<Int>()
            let value: Int = try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask { slot.fill(.success(round)); return nil }
                group.addTask { slot.fill(.success(-round)); return nil }
                group.addTask { try await withCheckedThrowingContinuation { slot.wait($0) } }
                var value: Int?
                for try await result in group { value = value ?? result }
                return value ?? .min
            }
            #expect(value == round || value == -round)
        }
    }
}
#endif
