#if os(Linux)
import Dispatch
import Foundation
import Glibc
import Imago
import Logging

/// `imago serve`'s syslog output (`IMGPROXY_SYSLOG_ENABLE`): each log line at or above ``level``
/// sent to a ``SyslogDestination`` as Go's `log/syslog` writes it for imgproxy,
/// `<PRI>TIMESTAMP HOSTNAME TAG[PID]: MESSAGE` and a newline (``line(_:severity:tag:hostname:pid:local:date:timeZone:)``).
///
/// A request never waits for it: ``send(_:level:)`` queues the line and returns; one serial queue
/// writes them, each connect or send bounded by ``SyslogSocket/timeout``. At most
/// ``maximumPending`` lines wait; more are dropped and counted. A send that fails closes the
/// connection, and the line is sent again on a new one, as `log/syslog` does; when that fails too
/// the line is dropped, the writer tries again at most once a second, and `report` is told once,
/// then once more when lines get through again.
package final class SyslogWriter: Sendable {
    /// The severity of a line (RFC 5424), from the swift-log level it was logged at (whose names
    /// are syslog's): trace and debug 7, info 6, notice 5, warning 4, error 3, critical 2.
    package static func severity(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// The facility of every line: 0 (`kern`), as imgproxy's, which opens its writer with
    /// `LOG_INFO` alone.
    package static let facility = 0

    /// Lines that may wait for the queue; past it a line is dropped.
    package static let maximumPending = 1024

    /// The longest datagram sent, in bytes (under UDP's 65,507); a longer line is cut to it, at a
    /// character's start, and still ends with a newline. A stream takes a line whole.
    package static let maximumDatagramBytes = 64_000

    package let destination: SyslogDestination
    package let tag: String
    /// Lines below it are not sent (`IMGPROXY_SYSLOG_LEVEL`).
    package let level: Logger.Level
    private let hostname: String
    private let pid: Int32
    private let queue = DispatchQueue(label: "imago.syslog")
    private let report: @Sendable (Logger.Level, String) -> Void
    private let counts = Locked(Counts())
    /// Touched only on `queue`.
    private let connection: Locked<Connection>

    private struct Counts {
        var pending = 0
        var dropped = 0
    }

    private struct Connection {
        var socket: SyslogSocket?
        var failing = false
        /// ``droppedCount`` when the failures began.
        var droppedBeforeFailing = 0
        var nextAttempt = ContinuousClock.now
    }

    /// A writer connected to `destination` now, as imgproxy connects at start.
    /// - Parameter report: told (off the request path) when delivery fails and when it recovers;
    ///   `imago serve` writes it to standard error.
    /// - Throws: ``SyslogSocket/Failure`` when the destination refuses the connection.
    package init(
        destination: SyslogDestination, tag: String = "imgproxy", level: Logger.Level = .info,
        report: @escaping @Sendable (Logger.Level, String) -> Void = { _, _ in }
    ) throws {
        self.destination = destination
        self.tag = tag
        self.level = level
        self.report = report
        var name = [UInt8](repeating: 0, count: 256)
        let named = name.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in chars.baseAddress.map { gethostname($0, chars.count - 1) == 0 } ?? false }
        }
        hostname = named ? String(decoding: name.prefix { $0 != 0 }, as: UTF8.self) : "localhost"
        pid = getpid()
        connection = Locked(Connection(socket: try SyslogSocket.connect(to: destination)))
    }

    deinit {
        connection.withLock { $0.socket?.close() }
    }

    /// Lines dropped so far: the queue was full, or the destination failed.
    package var droppedCount: Int { counts.withLock { $0.dropped } }

    /// Queues `message`, logged at `level`, and returns at once; dropped when ``maximumPending``
    /// lines wait. The caller filters by ``level``.
    package func send(_ message: String, level: Logger.Level) {
        let admitted = counts.withLock { counts in
            guard counts.pending < Self.maximumPending else {
                counts.dropped += 1
                return false
            }
            counts.pending += 1
            return true
        }
        guard admitted else { return }
        let date = Date()
        queue.async {
            self.deliver(message, severity: Self.severity(level), date: date)
            self.counts.withLock { $0.pending -= 1 }
        }
    }

    /// Waits until every line queued so far has been sent or dropped, or `timeout` has passed;
    /// whether they were.
    @discardableResult
    package func flush(within timeout: Duration = .seconds(60)) -> Bool {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        return done.wait(timeout: .now() + .milliseconds(Int(timeout / .milliseconds(1)))) == .success
    }

    /// One line on the connection (made again if it broke), or dropped.
    private func deliver(_ message: String, severity: Int, date: Date) {
        let told: (Logger.Level, String)? = connection.withLock { connection in
            var reason = "not connected"
            for attempt in 0..<2 {
                if connection.socket == nil {
                    // A destination that failed is tried again at most once a second, once a line.
                    if connection.failing, attempt == 1 || ContinuousClock.now < connection.nextAttempt { break }
                    connection.nextAttempt = .now + .seconds(1)
                    do {
                        connection.socket = try SyslogSocket.connect(to: destination)
                    } catch {
                        reason = "\(error)"
                        break
                    }
                }
                guard let socket = connection.socket else { break }
                let text = Self.line(
                    message, severity: severity, tag: tag, hostname: hostname, pid: pid, local: socket.isLocal, date: date)
                do {
                    try socket.send(socket.isStream ? Array(text.utf8) : Self.datagram(text))
                    guard connection.failing else { return nil }
                    connection.failing = false
                    let dropped = droppedCount - connection.droppedBeforeFailing
                    return (.notice, "syslog (\(destination)): delivering again; \(dropped) lines were dropped meanwhile")
                } catch {
                    reason = "\(error)"
                    socket.close()
                    connection.socket = nil
                }
            }
            return failed(&connection, reason)
        }
        if let (level, text) = told { report(level, text) }
    }

    /// Counts a dropped line; the text to report when this starts a run of failures.
    private func failed(_ connection: inout Connection, _ reason: String) -> (Logger.Level, String)? {
        let dropped = counts.withLock { counts in
            counts.dropped += 1
            return counts.dropped
        }
        guard !connection.failing else { return nil }
        connection.failing = true
        connection.droppedBeforeFailing = dropped - 1
        return (.error, "syslog (\(destination)): \(reason); lines are dropped until it answers again (tried at most once a second)")
    }

    /// `line`'s bytes, cut to ``maximumDatagramBytes`` (before a UTF-8 continuation byte never).
    static func datagram(_ line: String) -> [UInt8] {
        var bytes = Array(line.utf8)
        guard bytes.count > maximumDatagramBytes else { return bytes }
        var end = maximumDatagramBytes - 1
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        bytes.removeSubrange(end...)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// One line as Go's `log/syslog` writes it: `<PRI>` (``facility`` x 8 + severity), the time in
    /// RFC 3339 (in `timeZone`, `Z` for UTC), the host name, `TAG[PID]: `, the message and a
    /// newline unless it ends with one. To the local daemon (`local`), the time as `Jan _2
    /// 15:04:05` and no host name, as the daemon adds its own.
    static func line(
        _ message: String, severity: Int, tag: String, hostname: String, pid: Int32, local: Bool, date: Date,
        timeZone: TimeZone = .current
    ) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        let clock = "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
        let time: String
        if local {
            let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            let month = months[min(max((parts.month ?? 1) - 1, 0), 11)]
            let day = parts.day ?? 1
            time = "\(month) \(day < 10 ? " " : "")\(day) \(clock)"
        } else {
            let offset = timeZone.secondsFromGMT(for: date)
            let zone = offset == 0 ? "Z" : "\(offset < 0 ? "-" : "+")\(two(abs(offset) / 3600)):\(two(abs(offset) % 3600 / 60))"
            time = "\(parts.year ?? 1970)-\(two(parts.month))-\(two(parts.day))T\(clock)\(zone)"
        }
        let head = "<\(facility * 8 + severity)>\(time) \(local ? "" : hostname + " ")\(tag)[\(pid)]: "
        return head + message + (message.hasSuffix("\n") ? "" : "\n")
    }
}
#endif
