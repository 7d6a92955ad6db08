import Imago
import Logging

/// Collects what is logged through its ``logger``, for tests that check what a pipeline or a
/// server tells its operator (and what it does not).
public final class LogRecorder: Sendable {
    private let messages = Locked<[(Logger.Level, String)]>([])

    public init() {}

    /// A logger whose every message, at every level, is recorded here.
    public var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    /// How many messages were logged at `level` or above.
    public func count(at level: Logger.Level) -> Int { messages.withLock { $0.filter { $0.0 >= level }.count } }

    /// Every message so far, in order.
    public var all: [String] { messages.withLock { $0.map(\.1) } }

    fileprivate func record(_ level: Logger.Level, _ message: String) { messages.withLock { $0.append((level, message)) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { recorder.record(event.level, "\(event.message)") }
    }
}
