#if os(Linux)
import NIOCore
import Testing

@testable import ImagoServer

/// ``ConnectionTable``: the cap, and which connection makes room.
@Suite struct ConnectionTableTests {
    static func at(_ seconds: Int64) -> NIODeadline { .uptimeNanoseconds(UInt64(1_000 + seconds) * 1_000_000_000) }

    static func closed(_ admission: ConnectionTable<Int, String>.Admission) -> String? {
        if case .admitClosing(let handle) = admission { return handle }
        return nil
    }

    static func isAdmitted(_ admission: ConnectionTable<Int, String>.Admission) -> Bool {
        if case .refuse = admission { return false }
        return true
    }

    @Test func admitsUpToTheCap() {
        var table = ConnectionTable<Int, String>(maximumConnections: 3)
        for key in 0..<3 {
            let admission = table.open(key, handle: "c\(key)", at: Self.at(Int64(key)))
            #expect(Self.isAdmitted(admission) && Self.closed(admission) == nil)
        }
        #expect(table.count == 3)
    }

    /// At the cap, the connection that has waited longest without a request makes room: here
    /// an idle keep-alive connection that waited since 1 s, not the half-sent heads since 2 and 3 s.
    @Test func atTheCapTheLongestWaitingConnectionMakesRoom() {
        var table = ConnectionTable<Int, String>(maximumConnections: 3)
        _ = table.open(0, handle: "busy", at: Self.at(0))
        _ = table.open(1, handle: "half-sent", at: Self.at(2))
        _ = table.open(2, handle: "idle", at: Self.at(3))
        table.update(0, waitingSince: nil)  // a request in progress
        table.update(2, waitingSince: Self.at(1))
        #expect(Self.closed(table.open(3, handle: "fresh", at: Self.at(10))) == "idle")
        #expect(table.count == 3)
        #expect(Self.closed(table.open(4, handle: "fresher", at: Self.at(11))) == "half-sent")
        // Now the busy one and the two newcomers (waiting since 10 and 11 s): 10 s goes next.
        #expect(Self.closed(table.open(5, handle: "last", at: Self.at(12))) == "fresh")
    }

    @Test func refusesWhenEveryConnectionHasARequestInProgress() {
        var table = ConnectionTable<Int, String>(maximumConnections: 2)
        _ = table.open(0, handle: "a", at: Self.at(0))
        _ = table.open(1, handle: "b", at: Self.at(0))
        table.update(0, waitingSince: nil)
        table.update(1, waitingSince: nil)
        #expect(!Self.isAdmitted(table.open(2, handle: "c", at: Self.at(1))))
        #expect(table.count == 2)
        table.close(1)
        #expect(Self.isAdmitted(table.open(3, handle: "d", at: Self.at(2))))
    }

    @Test func aDisplacedConnectionsCloseIsANoOp() {
        var table = ConnectionTable<Int, String>(maximumConnections: 1)
        _ = table.open(0, handle: "old", at: Self.at(0))
        #expect(Self.closed(table.open(1, handle: "new", at: Self.at(1))) == "old")
        table.close(0)  // the displaced connection's own close, later
        table.update(0, waitingSince: Self.at(5))  // and a late event from it
        #expect(table.count == 1)
        #expect(Self.closed(table.open(2, handle: "newer", at: Self.at(2))) == "new")
    }
}
#endif
