#if os(Linux)
import Foundation
import Logging

/// `imago serve`'s log lines on standard error in one of imgproxy's formats
/// (`IMGPROXY_LOG_FORMAT`): `pretty` (swift-log's own line), `structured` (`key=value` pairs),
/// `json` (one object a line) or `gcp` (JSON with the fields Google Cloud Logging reads).
/// ``format(level:message:metadata:label:date:)`` makes the line, so tests read it without a stream.
///
/// With a ``SyslogWriter`` (`IMGPROXY_SYSLOG_ENABLE`), lines at or above the writer's level go
/// to syslog too, as imgproxy's syslog hook sends them: the same line (`structured` for
/// `pretty`, which swift-log writes itself), whether or not it is at the standard-error level.
package struct ServeLogHandler: LogHandler {
    /// imgproxy's log formats.
    package enum Format: String, Sendable, CaseIterable {
        case pretty, structured, json, gcp
    }

    package var format: Format
    package var label: String
    /// The level of lines written to standard error.
    package var outputLevel: Logger.Level
    /// Where lines at or above its level go too.
    package var syslog: SyslogWriter?
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private var pretty: StreamLogHandler

    /// The lowest level written anywhere: ``outputLevel``, or the syslog writer's level if lower.
    /// Setting it sets ``outputLevel``.
    package var logLevel: Logger.Level {
        get { syslog.map { min(outputLevel, $0.level) } ?? outputLevel }
        set { outputLevel = newValue }
    }

    /// A handler for `label` writing `format` lines at `logLevel` and above to standard error,
    /// and to `syslog` those at or above its level.
    package init(label: String, format: Format, logLevel: Logger.Level, syslog: SyslogWriter? = nil) {
        self.label = label
        self.format = format
        self.outputLevel = logLevel
        self.syslog = syslog
        pretty = StreamLogHandler.standardError(label: label)
        pretty.logLevel = .trace
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set {
            metadata[key] = newValue
            pretty[metadataKey: key] = newValue
        }
    }

    package func log(event: LogEvent) {
        let writes = event.level >= outputLevel
        let syslog = self.syslog.flatMap { event.level >= $0.level ? $0 : nil }
        if writes, format == .pretty { pretty.log(event: event) }
        guard (writes && format != .pretty) || syslog != nil else { return }
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let line = Self.format(format, level: event.level, message: "\(event.message)", metadata: all, label: label, date: Date())
        if writes, format != .pretty { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        syslog?.send(line, level: event.level)
    }

    /// One line in `format` (not `pretty`: swift-log writes that one).
    package static func format(
        _ format: Format, level: Logger.Level, message: String, metadata: Logger.Metadata, label: String, date: Date
    ) -> String {
        let time = date.formatted(.iso8601)
        let fields = metadata.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") }
        switch format {
        case .pretty, .structured:
            // logrus's text format, as imgproxy writes it: time, level, msg, then the fields.
            let pairs = [("time", time), ("level", imgproxyLevel(level)), ("msg", message), ("logger", label)] + fields
            return pairs.map { "\($0.0)=\(quotedIfNeeded($0.1))" }.joined(separator: " ")
        case .json:
            let pairs = [("time", time), ("level", imgproxyLevel(level)), ("msg", message), ("logger", label)] + fields
            return "{" + pairs.map { "\(JSONText.quoted($0.0)):\(JSONText.quoted($0.1))" }.joined(separator: ",") + "}"
        case .gcp:
            let severity = ["trace": "DEBUG", "debug": "DEBUG", "info": "INFO", "notice": "NOTICE", "warning": "WARNING",
                "error": "ERROR", "critical": "CRITICAL"][level.rawValue] ?? "DEFAULT"
            let pairs = [("time", time), ("severity", severity), ("message", message), ("logger", label)] + fields
            return "{" + pairs.map { "\(JSONText.quoted($0.0)):\(JSONText.quoted($0.1))" }.joined(separator: ",") + "}"
        }
    }

    /// The level as logrus names it (`warning`, `error`, `fatal`…).
    static func imgproxyLevel(_ level: Logger.Level) -> String {
        switch level {
        case .trace: "trace"
        case .debug: "debug"
        case .info, .notice: "info"
        case .warning: "warning"
        case .error: "error"
        case .critical: "fatal"
        }
    }

    /// `text` as it is when it is a bare word, else in quotes with `"`, `\` and control characters escaped.
    static func quotedIfNeeded(_ text: String) -> String {
        let bare = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "=" && $0 != "\\" }
        return bare ? text : JSONText.quoted(text)
    }
}
#endif
