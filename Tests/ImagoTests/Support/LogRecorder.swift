import Logging
import Synchronization

/// Collects what is logged, to count messages.
final class LogRecorder: Sendable {
    private let messages = Mutex<[(Logger.Level, String)]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    func count(at level: Logger.Level) -> Int { messages.withLock { $0.filter { $0.0 >= level }.count } }
    var all: [String] { messages.withLock { $0.map(\.1) } }

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
