#if os(Linux)
import NIOCore
import Testing

@testable import ImagoServer

/// ``ConnectionDeadlines`` without time passing: every instant is given.
@Suite struct ConnectionDeadlinesTests {
    static let limits = ConnectionDeadlines.Limits(header: .seconds(10), idle: .seconds(75), write: .seconds(30))

    static func at(_ seconds: Int64) -> NIODeadline { .uptimeNanoseconds(UInt64(1_000 + seconds) * 1_000_000_000) }

    @Test func aSilentNewConnectionHasTheHeaderTimeout() {
        let deadlines = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        #expect(deadlines.next?.deadline == Self.at(10))
        #expect(deadlines.next?.expiry == .header)
        #expect(deadlines.expiry(at: Self.at(9)) == nil)
        #expect(deadlines.expiry(at: Self.at(10)) == .header)
        #expect(deadlines.waitingWithoutRequestSince == Self.at(0))
    }

    /// A byte a second never moves the deadline: a read-idle timeout would never fire.
    @Test func aTrickledHeadIsClosedAtTheHeaderDeadlineWhateverItSends() {
        var deadlines = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        for second in Int64(0)..<10 {
            deadlines.bytesRead(at: Self.at(second))
            #expect(deadlines.expiry(at: Self.at(second)) == nil)
        }
        #expect(deadlines.expiry(at: Self.at(10)) == .header)
    }

    @Test func aRequestInProgressHasNoReadDeadline() {
        var deadlines = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        deadlines.bytesRead(at: Self.at(1))
        deadlines.requestHeadRead()
        deadlines.requestEndRead(at: Self.at(2))
        #expect(deadlines.isBusy)
        #expect(deadlines.next == nil)
        #expect(deadlines.waitingWithoutRequestSince == nil)
        #expect(deadlines.expiry(at: Self.at(1_000)) == nil, "the proxy's own work is bounded elsewhere")
    }

    /// After a response, silence is idle (75 s); the next request's first byte starts its own
    /// header deadline (10 s), however long the connection was idle.
    @Test func keepAliveIsIdleUntilTheNextRequestBegins() {
        var deadlines = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        deadlines.bytesRead(at: Self.at(0))
        deadlines.requestHeadRead()
        deadlines.requestEndRead(at: Self.at(0))
        deadlines.responseWritten(at: Self.at(5))
        #expect(deadlines.next?.deadline == Self.at(80))
        #expect(deadlines.next?.expiry == .idle)
        #expect(deadlines.waitingWithoutRequestSince == Self.at(5))
        deadlines.bytesRead(at: Self.at(60))
        #expect(deadlines.next?.deadline == Self.at(70))
        #expect(deadlines.expiry(at: Self.at(70)) == .header)
    }

    /// A body trickled after the head is still part of the request: the header deadline holds,
    /// even when the response went out before the body ended.
    @Test func aTrickledBodyIsBoundedByTheHeaderDeadline() {
        var deadlines = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        deadlines.bytesRead(at: Self.at(1))
        deadlines.requestHeadRead()
        deadlines.responseWritten(at: Self.at(2))
        deadlines.bytesRead(at: Self.at(5))
        #expect(deadlines.expiry(at: Self.at(11)) == .header)
        deadlines.requestEndRead(at: Self.at(8))
        #expect(deadlines.next?.deadline == Self.at(83), "idle from the moment the request ended")
    }

    /// Two pipelined requests: the read deadline comes back only when both are answered.
    @Test func pipelinedRequestsAreAllAnsweredBeforeTheConnectionWaits() {
        var deadlines = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        deadlines.bytesRead(at: Self.at(0))
        deadlines.requestHeadRead()
        deadlines.requestEndRead(at: Self.at(0))
        deadlines.bytesRead(at: Self.at(1))
        deadlines.requestHeadRead()
        deadlines.requestEndRead(at: Self.at(1))
        deadlines.responseWritten(at: Self.at(3))
        #expect(deadlines.isBusy && deadlines.next == nil)
        deadlines.responseWritten(at: Self.at(4))
        #expect(deadlines.next?.deadline == Self.at(79))
    }

    @Test func aStuckWriteBufferHasTheWriteTimeout() {
        var deadlines = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        deadlines.bytesRead(at: Self.at(0))
        deadlines.requestHeadRead()
        deadlines.requestEndRead(at: Self.at(0))
        deadlines.writabilityChanged(isWritable: false, at: Self.at(1))
        deadlines.writabilityChanged(isWritable: false, at: Self.at(20))  // still the first moment
        #expect(deadlines.next?.deadline == Self.at(31))
        #expect(deadlines.expiry(at: Self.at(31)) == .write)
        deadlines.writabilityChanged(isWritable: true, at: Self.at(30))
        #expect(deadlines.next == nil, "progress: the buffer drained under its low-water mark")
        // The tail of a response still stuck after its end was handed over keeps the write
        // deadline, and it comes before the idle one.
        deadlines.writabilityChanged(isWritable: false, at: Self.at(40))
        deadlines.responseWritten(at: Self.at(41))
        #expect(deadlines.next?.deadline == Self.at(70))
        #expect(deadlines.next?.expiry == .write)
    }

    @Test func countsNeverGoNegativeOnUnmatchedEvents() {
        var deadlines = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        deadlines.responseWritten(at: Self.at(1))
        deadlines.responseWritten(at: Self.at(2))
        #expect(!deadlines.isBusy)
        deadlines.requestHeadRead()
        #expect(deadlines.isBusy, "one unanswered request, whatever came before")
    }
}
#endif
