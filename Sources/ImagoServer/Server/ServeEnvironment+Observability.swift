#if os(Linux)
import Foundation
import Logging

extension ServeEnvironment {
    /// imgproxy's log and Prometheus variables; each `nil` when its variable is unset.
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
            if let text = reader.text("IMGPROXY_LOG_LEVEL") {
                let levels: [String: Logger.Level] = [
                    "trace": .trace, "debug": .debug, "info": .info, "warn": .warning, "warning": .warning, "error": .error,
                    "fatal": .critical, "panic": .critical,
                ]
                guard let level = levels[text.lowercased()] else {
                    throw ServeEnvironmentError(
                        variable: "IMGPROXY_LOG_LEVEL", message: "takes debug, info, warn, error (or trace, fatal, panic), not \"\(text)\"")
                }
                logLevel = level
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
