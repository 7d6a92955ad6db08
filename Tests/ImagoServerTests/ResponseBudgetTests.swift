#if os(Linux)
import Foundation
import Testing

@testable import ImagoServer

/// ``ResponseBudget`` and its leases: large bodies in flight, each stored body counted once.
@Suite struct ResponseBudgetTests {
    static let mebibyte = 1024 * 1024

    @Test func refusesABodyPastTheLimitUntilOneIsDone() {
        var budget = ResponseBudget(limit: 100)
        let admitted1 = budget.acquire(bytes: 60, storage: nil)
        #expect(admitted1)
        let admitted2 = budget.acquire(bytes: 60, storage: nil)
        #expect(!admitted2)
        let admitted3 = budget.acquire(bytes: 40, storage: nil)
        #expect(admitted3)
        #expect(budget.bytesInFlight == 100)
        budget.release(bytes: 60, storage: nil)
        let admitted4 = budget.acquire(bytes: 60, storage: nil)
        #expect(admitted4)
    }

    @Test func aBodyOverTheLimitGoesOutAlone() {
        var budget = ResponseBudget(limit: 100)
        let admitted5 = budget.acquire(bytes: 500, storage: nil)
        #expect(admitted5)
        let admitted6 = budget.acquire(bytes: 1, storage: nil)
        #expect(!admitted6)
        budget.release(bytes: 500, storage: nil)
        #expect(budget.bytesInFlight == 0)
    }

    @Test func aSharedBodyCountsOnceUntilItsLastHolderIsDone() {
        var budget = ResponseBudget(limit: 100)
        let storage = ResponseBudget.Storage(address: 0x1000, count: 80)
        for _ in 0..<40 {
            let admitted = budget.acquire(bytes: 80, storage: storage)
            #expect(admitted)
        }
        #expect(budget.bytesInFlight == 80)
        let admitted8 = budget.acquire(bytes: 80, storage: ResponseBudget.Storage(address: 0x2000, count: 80))
        #expect(!admitted8, "another body")
        for _ in 0..<39 { budget.release(bytes: 80, storage: storage) }
        #expect(budget.bytesInFlight == 80)
        budget.release(bytes: 80, storage: storage)
        #expect(budget.bytesInFlight == 0)
    }

    /// The performer: leases on one `Data` (as the response cache hands out) share an entry,
    /// a copy does not, and dropping the leases gives everything back.
    @Test func leasesNameTheStorageAndReleaseWhenDropped() {
        let inFlight = ResponseBytesInFlight(limit: 3 * Self.mebibyte, metrics: nil)
        let body = Data(repeating: 7, count: 2 * Self.mebibyte)
        var leases = (0..<10).compactMap { _ in inFlight.lease(body) }
        #expect(leases.count == 10)
        #expect(inFlight.bytesInFlight == 2 * Self.mebibyte)
        let copy = Data(Array(body))
        #expect(inFlight.lease(copy) == nil, "a second 2 MiB body is over the 3 MiB limit")
        leases.removeLast(9)
        #expect(inFlight.bytesInFlight == 2 * Self.mebibyte)
        leases.removeAll()
        #expect(inFlight.bytesInFlight == 0)
        #expect(inFlight.lease(copy) != nil)
        #expect(inFlight.bytesInFlight == 0, "the unkept lease was released at once")
    }
}
#endif
