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

    // MARK: The minimum send rate

    /// 1,000 bytes per second, 30 s behind it at most; the write timeout as usual.
    static let rated = ConnectionDeadlines.Limits(
        header: .seconds(10), idle: .seconds(75), write: .seconds(30), minimumRate: 1_000, rateGrace: .seconds(30))

    /// A connection whose one request has arrived and whose response's head goes out at `start`.
    static func sending(_ limits: ConnectionDeadlines.Limits = rated, from start: Int64 = 0) -> ConnectionDeadlines {
        var deadlines = ConnectionDeadlines(limits: limits, openedAt: at(0))
        deadlines.bytesRead(at: at(0))
        deadlines.requestHeadRead()
        deadlines.requestEndRead(at: at(0))
        deadlines.responseStarted(at: at(start))
        return deadlines
    }

    /// A response that keeps up with the rate is never closed by it: its deadline moves on
    /// with every byte handed over.
    @Test func aResponseAtTheRateIsNeverClosed() {
        var deadlines = Self.sending()
        #expect(deadlines.next?.deadline == Self.at(30))
        #expect(deadlines.next?.expiry == .rate)
        for second in Int64(1)...600 {
            deadlines.responseSent(bytes: Int(second) * 1_000)
            #expect(deadlines.expiry(at: Self.at(second)) == nil)
        }
        #expect(deadlines.next?.deadline == Self.at(630))
        deadlines.responseWritten(at: Self.at(600))
        #expect(deadlines.next?.deadline == Self.at(675), "done: the idle timeout, no rate")
        #expect(deadlines.next?.expiry == .idle)
    }

    /// At half the rate, steadily, a response falls behind by a second every two: it is closed
    /// once it is the grace (30 s) behind, at 60 s, however regularly it took its bytes.
    @Test func aSteadyResponseBelowTheRateIsClosedOnceItIsTheGraceBehind() {
        var deadlines = Self.sending()
        for second in Int64(1)..<60 {
            deadlines.responseSent(bytes: Int(second) * 500)
            #expect(deadlines.expiry(at: Self.at(second)) == nil, "closed at \(second) s")
        }
        deadlines.responseSent(bytes: 30_000)
        #expect(deadlines.expiry(at: Self.at(60)) == .rate)
    }

    /// The rule looks at every byte since the head, not at one window: bytes handed over in a
    /// burst (the kernel takes a third of a large send buffer at a time) count for the time they
    /// are worth, so a reader that keeps up on average is never closed between bursts; and a
    /// response of n bytes is held at most grace + n / rate.
    @Test func burstsCountForTheTimeTheyAreWorth() {
        var deadlines = Self.sending()
        deadlines.responseSent(bytes: 100_000)  // at once: the socket's buffers fill
        #expect(deadlines.expiry(at: Self.at(129)) == nil)
        #expect(deadlines.expiry(at: Self.at(130)) == .rate)
        deadlines.responseSent(bytes: 50_000)  // a count that only grows: a stale report changes nothing
        #expect(deadlines.next?.deadline == Self.at(130))
    }

    /// A response the socket's buffers take whole is handed over as soon as its head: it is
    /// never held by the rate, and each response has its own count from its own head.
    @Test func eachResponseIsCountedFromItsHead() {
        var deadlines = Self.sending()
        deadlines.responseSent(bytes: 2_000)
        deadlines.responseWritten(at: Self.at(0))
        #expect(deadlines.next?.expiry == .idle)
        deadlines.bytesRead(at: Self.at(50))
        deadlines.requestHeadRead()
        deadlines.requestEndRead(at: Self.at(50))
        deadlines.responseStarted(at: Self.at(60))
        #expect(deadlines.next?.deadline == Self.at(90), "the bytes of the response before are not this one's credit")
        #expect(deadlines.next?.expiry == .rate)
    }

    /// A pipelined response whose head goes out behind the tail of the one before joins its
    /// transfer: the rate counts from the first head until neither is left going out, so the
    /// first one's end does not leave the second unwatched.
    @Test func pipelinedResponsesGoOutAsOneTransfer() {
        var deadlines = Self.sending()
        deadlines.bytesRead(at: Self.at(1))
        deadlines.requestHeadRead()
        deadlines.requestEndRead(at: Self.at(1))
        deadlines.responseSent(bytes: 4_000)
        let began = deadlines.responseStarted(at: Self.at(5))
        #expect(!began, "it joins the transfer under way")
        deadlines.responseWritten(at: Self.at(6))
        #expect(deadlines.next?.deadline == Self.at(34))
        #expect(deadlines.next?.expiry == .rate)
        deadlines.responseSent(bytes: 10_000)
        #expect(deadlines.expiry(at: Self.at(39)) == nil)
        #expect(deadlines.expiry(at: Self.at(40)) == .rate)
        deadlines.responseWritten(at: Self.at(39))
        #expect(deadlines.next?.expiry == .idle)
        let beganAgain = deadlines.responseStarted(at: Self.at(50))
        #expect(beganAgain, "a new transfer")
        #expect(deadlines.next?.deadline == Self.at(80))
    }

    /// A write buffer stuck for the write timeout closes the connection even when the rate's
    /// deadline is further off; with no minimum rate, only the write timeout runs.
    @Test func theWriteTimeoutAndTheRateEachApply() {
        var deadlines = Self.sending()
        deadlines.responseSent(bytes: 1_000_000)
        deadlines.writabilityChanged(isWritable: false, at: Self.at(2))
        #expect(deadlines.next?.deadline == Self.at(32))
        #expect(deadlines.expiry(at: Self.at(32)) == .write)
        var unrated = Self.sending(Self.limits)
        #expect(unrated.next == nil, "no minimum rate: no deadline while the response goes out")
        unrated.writabilityChanged(isWritable: false, at: Self.at(2))
        #expect(unrated.expiry(at: Self.at(32)) == .write)
    }

    /// Byte counts beyond any real response do not overflow the deadline.
    @Test func hugeCountsSaturate() {
        var deadlines = Self.sending(
            ConnectionDeadlines.Limits(header: .seconds(10), idle: .seconds(75), write: .seconds(30), minimumRate: 1, rateGrace: .seconds(30)))
        deadlines.responseSent(bytes: .max)
        #expect(deadlines.expiry(at: Self.at(1_000_000_000)) == nil)
        #expect(deadlines.next?.expiry == .rate)
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
