#if os(Linux)
import Foundation
import Logging

extension ServeEnvironment {
    /// imgproxy's log, syslog and Prometheus variables; each `nil` when its variable is unset.
    package struct Observability: Sendable, Equatable {
        /// `IMGPROXY_LOG_FORMAT`: `pretty` (imgproxy's default), `structured`, `json` or `gcp`.
        package var logFormat: ServeLogHandler.Format?
        /// `IMGPROXY_LOG_LEVEL`, as logrus names levels (`debug`, `info`, `warn`, `error`…;
        /// imgproxy's default `info`).
        package var logLevel: Logger.Level?
        /// `IMGPROXY_PROMETHEUS_BIND` (`host:port`, `:port` for every interface): where `/metrics`
        /// is served instead of the serving port (`--metrics-host`, `--metrics-port`).
        package var prometheusHost: String?
        /// `IMGPROXY_PROMETHEUS_BIND`'s port.
        package var prometheusPort: Int?
        /// `IMGPROXY_PROMETHEUS_NAMESPACE`: the first word of every metric's name, in place of `imago`.
        package var prometheusNamespace: String?
        /// `IMGPROXY_LOG_MEM_STATS`: a debug line of memory figures after each processed request.
        package var logsMemoryStatistics: Bool?
        /// `IMGPROXY_SYSLOG_ENABLE`: log lines go to syslog too.
        package var syslogEnabled: Bool?
        /// `IMGPROXY_SYSLOG_NETWORK` and `IMGPROXY_SYSLOG_ADDRESS` (read only when syslog is
        /// enabled, as imgproxy reads them): the local daemon when no network is set.
        package var syslogDestination: SyslogDestination?
        /// `IMGPROXY_SYSLOG_TAG` (imgproxy's default `imgproxy`).
        package var syslogTag: String?
        /// `IMGPROXY_SYSLOG_LEVEL`: `debug`, `info`, `warn`, `error` or `crit` (imgproxy's default:
        /// the log level).
        package var syslogLevel: Logger.Level?

        package init() {}

        /// The settings `reader`'s environment names.
        /// - Throws: ``ServeEnvironmentError`` naming the first variable whose value does not parse.
        init(_ reader: Reader) throws(ServeEnvironmentError) {
            if let text = reader.text("IMGPROXY_LOG_FORMAT") {
                guard let format = ServeLogHandler.Format(rawValue: text.lowercased()) else {
                    throw ServeEnvironmentError(variable: "IMGPROXY_LOG_FORMAT", message: "takes pretty, structured, json or gcp, not \"\(text)\"")
                }
                logFormat = format
            }
            let levels: [String: Logger.Level] = [
                "trace": .trace, "debug": .debug, "info": .info, "warn": .warning, "warning": .warning, "error": .error,
                "fatal": .critical, "panic": .critical,
            ]
            if let text = reader.text("IMGPROXY_LOG_LEVEL") {
                guard let level = levels[text.lowercased()] else {
                    throw ServeEnvironmentError(
                        variable: "IMGPROXY_LOG_LEVEL", message: "takes debug, info, warn, error (or trace, fatal, panic), not \"\(text)\"")
                }
                logLevel = level
            }
            logsMemoryStatistics = try reader.boolean("IMGPROXY_LOG_MEM_STATS")
            syslogEnabled = try reader.boolean("IMGPROXY_SYSLOG_ENABLE")
            if let text = reader.text("IMGPROXY_SYSLOG_LEVEL") {
                // imgproxy's `crit`, beside the names IMGPROXY_LOG_LEVEL takes.
                guard let level = levels.merging(["crit": .critical], uniquingKeysWith: { $1 })[text.lowercased()] else {
                    throw ServeEnvironmentError(
                        variable: "IMGPROXY_SYSLOG_LEVEL", message: "takes debug, info, warn, error or crit, not \"\(text)\"")
                }
                syslogLevel = level
            }
            syslogTag = reader.text("IMGPROXY_SYSLOG_TAG")
            if syslogEnabled == true {
                syslogDestination = try SyslogDestination(
                    network: reader.text("IMGPROXY_SYSLOG_NETWORK"), address: reader.text("IMGPROXY_SYSLOG_ADDRESS"))
            }
            if let bind = reader.text("IMGPROXY_PROMETHEUS_BIND") {
                guard let colon = bind.lastIndex(of: ":"), let port = Int(bind[bind.index(after: colon)...]), (0...65535).contains(port)
                else {
                    throw ServeEnvironmentError(variable: "IMGPROXY_PROMETHEUS_BIND", message: "takes HOST:PORT or :PORT, not \"\(bind)\"")
                }
                var host = String(bind[..<colon])
                if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
                prometheusHost = host.isEmpty ? "0.0.0.0" : host
                prometheusPort = port
            }
            if let namespace = reader.text("IMGPROXY_PROMETHEUS_NAMESPACE") {
                // Prometheus's metric-name characters; no colon (reserved for recording rules).
                let valid = namespace.unicodeScalars.enumerated().allSatisfy { index, scalar in
                    scalar.isASCII && (scalar == "_" || (scalar.properties.isAlphabetic) || (index > 0 && ("0"..."9").contains(scalar)))
                }
                guard valid else {
                    throw ServeEnvironmentError(
                        variable: "IMGPROXY_PROMETHEUS_NAMESPACE",
                        message: "takes letters, digits and _ (not first a digit), as Prometheus names metrics, not \"\(namespace)\"")
                }
                prometheusNamespace = namespace
            }
        }
    }
}
#endif
