#if os(Linux)
import NIOCore

/// When one connection must be closed, as a value: the owner (``ConnectionGuard``) reports what
/// happened on the connection, with the time, and asks for the next deadline and whether one
/// has passed, so every rule is tested without waiting.
///
/// - A request must arrive whole (head and any body) within the header timeout, counted from
///   the connection's opening for its first request and from its first byte for a later one;
///   further bytes do not extend it (a byte a second would keep a read-idle timeout alive forever).
/// - Between requests, a keep-alive connection may stay silent for the idle timeout, counted
///   from the moment the last response was written out.
/// - While a request is being answered there is no read deadline (the proxy's own work is
///   bounded by its download timeouts); the response's bytes are bounded by the write timeout:
///   the write buffer may stay over its high-water mark for at most that long.
/// - And by the minimum send rate: from its head, a response must go out (be handed to the
///   operating system) at the rate on average, at most the rate's grace behind it. A reader
///   that takes a few bytes often enough to keep the write timeout from firing is closed by
///   this one. A response the socket's buffers take whole is done at once, so it is never
///   held by the rate; nor is one whose bytes keep up with it, however bursty the kernel's
///   uptake (the rule looks at all bytes since the head, not at one window).
///
/// Pipelined requests are counted, so the read deadline resumes only when every response is
/// out. A second request whose first bytes arrive in the same read as the end of the one before
/// is seen as beginning after the response: it gets the idle timeout, not the header timeout (a
/// looser bound, never none).
struct ConnectionDeadlines: Sendable {
    /// The timeouts, as the event loop counts time.
    struct Limits: Sendable, Equatable {
        var header: TimeAmount
        var idle: TimeAmount
        var write: TimeAmount
        /// Bytes per second a response must average; 0 or less: no minimum.
        var minimumRate: Int
        /// How far behind the minimum rate a response may fall.
        var rateGrace: TimeAmount

        init(header: TimeAmount, idle: TimeAmount, write: TimeAmount, minimumRate: Int = 0, rateGrace: TimeAmount = .seconds(30)) {
            self.header = header
            self.idle = idle
            self.write = write
            self.minimumRate = minimumRate
            self.rateGrace = rateGrace
        }

        init(_ configuration: ImagoServer.Configuration) {
            self.init(
                header: TimeAmount(configuration.headerTimeout), idle: TimeAmount(configuration.idleTimeout),
                write: TimeAmount(configuration.writeTimeout), minimumRate: configuration.minimumSendRate,
                rateGrace: TimeAmount(configuration.sendRateGrace))
        }
    }

    /// Which deadline passed.
    enum Expiry: String, Sendable, Equatable {
        /// A request did not arrive whole in time (a slowloris, or a connection that never spoke).
        case header = "header_timeout"
        /// A keep-alive connection stayed silent too long.
        case idle = "idle_timeout"
        /// A response stayed stuck in the write buffer (a reader too slow or gone).
        case write = "write_timeout"
        /// A response went out slower than the minimum rate (a reader too slow).
        case rate = "send_rate"
    }

    let limits: Limits
    /// Since when nothing has been in progress: the opening, or the last response written out.
    private var waitingSince: NIODeadline
    /// The first byte of a request whose end has not been read yet.
    private var readingSince: NIODeadline?
    /// Requests whose head was read and whose response is not written out yet.
    private var unanswered = 0
    /// Whether a response has gone out (then silence is idle, not a missing first request).
    private var hasAnswered = false
    /// Since when the write buffer has been over its high-water mark.
    private var stuckSince: NIODeadline?
    /// Responses whose head has been written and whose last byte is not handed over yet: more
    /// than one when a pipelined response's head goes out behind the tail of the one before.
    private var sending = 0
    /// When the first of them began (its head): they go out as one transfer.
    private var sendingSince: NIODeadline?
    /// Bytes of that transfer handed to the operating system so far.
    private var sent = 0

    init(limits: Limits, openedAt opened: NIODeadline) {
        self.limits = limits
        waitingSince = opened
    }

    /// Bytes arrived from the client.
    mutating func bytesRead(at now: NIODeadline) {
        if readingSince == nil { readingSince = now }
    }

    /// A request's head was decoded.
    mutating func requestHeadRead() {
        if unanswered < Int.max { unanswered += 1 }
    }

    /// A request's end was decoded: it arrived whole.
    mutating func requestEndRead(at now: NIODeadline) {
        readingSince = nil
        if unanswered == 0 { waitingSince = now }  // its response went out before its body ended
    }

    /// A response's head is going out; returns `true` when it begins a transfer (no response was
    /// going out), whose bytes the owner then counts from here. A pipelined response whose head
    /// follows the tail of the one before joins that one's transfer: the minimum rate counts from
    /// the first head until no response is left going out.
    @discardableResult
    mutating func responseStarted(at now: NIODeadline) -> Bool {
        if sending < Int.max { sending += 1 }
        guard sending == 1 else { return false }
        sendingSince = now
        sent = 0
        return true
    }

    /// `bytes` of the transfer going out have been handed to the operating system in all (a
    /// count that only grows; the owner reports it when it looks).
    mutating func responseSent(bytes: Int) {
        if bytes > sent { sent = bytes }
    }

    /// A response's last byte was handed to the operating system.
    mutating func responseWritten(at now: NIODeadline) {
        if sending > 0 { sending -= 1 }
        if sending == 0 {
            sendingSince = nil
            sent = 0
        }
        if unanswered > 0 { unanswered -= 1 }
        hasAnswered = true
        if unanswered == 0 { waitingSince = now }
    }

    /// The write buffer crossed a water mark: `false` over the high one, `true` back under the low one.
    mutating func writabilityChanged(isWritable: Bool, at now: NIODeadline) {
        if isWritable {
            stuckSince = nil
        } else if stuckSince == nil {
            stuckSince = now
        }
    }

    /// Whether a request is in progress (read, not yet answered): such a connection is never
    /// closed to make room for another.
    var isBusy: Bool { unanswered > 0 }

    /// Since when the connection has waited without a request in progress, or `nil` while one
    /// is: the connection table closes the longest-waiting one first.
    var waitingWithoutRequestSince: NIODeadline? { isBusy ? nil : waitingSince }

    /// The read side's deadline, if one runs.
    private var readDeadline: (NIODeadline, Expiry)? {
        if let readingSince { return (readingSince + limits.header, .header) }
        if isBusy { return nil }
        return hasAnswered ? (waitingSince + limits.idle, .idle) : (waitingSince + limits.header, .header)
    }

    /// The write side's deadline, if one runs.
    private var writeDeadline: (NIODeadline, Expiry)? {
        stuckSince.map { ($0 + limits.write, .write) }
    }

    /// The minimum rate's deadline, if a response is going out: its transfer's first head, plus
    /// the grace, plus the time the bytes sent since are worth at the rate.
    private var rateDeadline: (NIODeadline, Expiry)? {
        guard let sendingSince, limits.minimumRate > 0 else { return nil }
        // Capped at about 30 years, so the sum cannot overflow (NIODeadline saturates anyway).
        let worth = min(Double(sent) / Double(limits.minimumRate), 1e9)
        return (sendingSince + limits.rateGrace + .nanoseconds(Int64(worth * 1e9)), .rate)
    }

    /// The earliest deadline that runs, with what it enforces.
    var next: (deadline: NIODeadline, expiry: Expiry)? {
        Self.earlier(Self.earlier(readDeadline, writeDeadline), rateDeadline)
    }

    /// The earlier of two deadlines (the first on a tie).
    private static func earlier(_ first: (NIODeadline, Expiry)?, _ second: (NIODeadline, Expiry)?) -> (NIODeadline, Expiry)? {
        guard let first else { return second }
        guard let second else { return first }
        return second.0 < first.0 ? second : first
    }

    /// The deadline that has passed at `now`, if any: the connection is then closed.
    func expiry(at now: NIODeadline) -> Expiry? {
        guard let next, next.deadline <= now else { return nil }
        return next.expiry
    }
}
#endif
