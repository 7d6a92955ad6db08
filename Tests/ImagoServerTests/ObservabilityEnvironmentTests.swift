#if os(Linux)
import AsyncHTTPClient
import Foundation
import ImagoTestSupport
import Logging
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_LOG_FORMAT`, `IMGPROXY_LOG_LEVEL`, `IMGPROXY_PROMETHEUS_BIND` and
/// `IMGPROXY_PROMETHEUS_NAMESPACE`: read with imgproxy's spellings, each with its effect, a bad
/// value refused by name.
@Suite struct ObservabilityEnvironmentTests {
    @Test func readsImgproxysSpellings() throws {
        let set = try ServeEnvironment([
            "IMGPROXY_LOG_FORMAT": "json", "IMGPROXY_LOG_LEVEL": "WARN", "IMGPROXY_PROMETHEUS_BIND": ":9464",
            "IMGPROXY_PROMETHEUS_NAMESPACE": "pics",
        ]).observability
        #expect(set.logFormat == .json && set.logLevel == .warning)
        #expect(set.prometheusHost == "0.0.0.0" && set.prometheusPort == 9464 && set.prometheusNamespace == "pics")
        #expect(try ServeEnvironment(["IMGPROXY_PROMETHEUS_BIND": "[::1]:9100"]).observability.prometheusHost == "::1")
        #expect(try ServeEnvironment([:]).observability == ServeEnvironment.Observability())
    }

    @Test(arguments: [
        ("IMGPROXY_LOG_FORMAT", "xml"), ("IMGPROXY_LOG_LEVEL", "loud"), ("IMGPROXY_PROMETHEUS_BIND", "9464"),
        ("IMGPROXY_PROMETHEUS_BIND", ":99999"), ("IMGPROXY_PROMETHEUS_NAMESPACE", "1pics"), ("IMGPROXY_PROMETHEUS_NAMESPACE", "my-pics"),
    ])
    func aBadValueIsRefusedByName(variable: String, value: String) {
        #expect {
            _ = try ServeEnvironment([variable: value])
        } throws: { error in
            (error as? ServeEnvironmentError)?.variable == variable && "\(error)".contains(variable)
        }
    }

    /// Each format's line: logrus's `key=value` text, JSON, and Google Cloud Logging's JSON.
    @Test func eachFormatWritesItsLine() throws {
        let date = Date(timeIntervalSince1970: 1_795_824_000)
        let metadata: Logger.Metadata = ["path": "/a b", "status": "200"]
        let structured = ServeLogHandler.format(.structured, level: .warning, message: "said \"hi\"\n", metadata: metadata, label: "imago.serve", date: date)
        #expect(structured.hasPrefix("time=2026-"))
        #expect(structured.contains(" level=warning msg=\"said \\\"hi\\\"\\n\" logger=imago.serve path=\"/a b\" status=200"), "\(structured)")
        for (format, levelKey, messageKey, level) in [
            (ServeLogHandler.Format.json, "level", "msg", "error"), (.gcp, "severity", "message", "ERROR"),
        ] {
            let line = ServeLogHandler.format(format, level: .error, message: "a\u{1}b", metadata: metadata, label: "imago.serve", date: date)
            #expect(!line.contains("\n"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "\(line)")
            #expect(object[levelKey] == level && object[messageKey] == "a\u{1}b" && object["path"] == "/a b")
            #expect(object["time"]?.hasPrefix("2026-") == true)
        }
    }

    /// The level is the handler's: below it, nothing is logged.
    @Test func theLevelIsTheHandlers() throws {
        let environment = try ServeEnvironment(["IMGPROXY_LOG_LEVEL": "error", "IMGPROXY_LOG_FORMAT": "structured"])
        let level = try #require(environment.observability.logLevel)
        let format = try #require(environment.observability.logFormat)
        let logger = Logger(label: "imago.serve") { ServeLogHandler(label: $0, format: format, logLevel: level) }
        #expect(logger.logLevel == .error)
        #expect(Logger(label: "x") { ServeLogHandler(label: $0, format: .pretty, logLevel: .debug) }.logLevel == .debug)
    }

    /// `imago serve` with imgproxy's variables alone: `/metrics` on the Prometheus address (and not
    /// on the serving port), names under the namespace, log lines as JSON.
    /// Not in the sanitizer stages: their builds have no `imago` (Package.swift).
    @Test(.disabled(if: ExternalPrograms.sanitized, "the sanitizer builds have no imago executable"))
    func imagoServeTakesThemFromTheEnvironment() async throws {
        try await withServeProcess(
            arguments: ["--allow-unsigned"],
            environment: [
                "IMGPROXY_PROMETHEUS_BIND": "127.0.0.1:0", "IMGPROXY_PROMETHEUS_NAMESPACE": "pics", "IMGPROXY_LOG_FORMAT": "json",
            ]
        ) { serve, client in
            let port = try await serve.metricsPort()
            func get(_ port: Int, _ path: String) async throws -> (Int, String) {
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1024 * 1024)
                return (Int(response.status.code), String(decoding: body.readableBytesView, as: UTF8.self))
            }
            #expect(try await get(serve.port, "/health").0 == 200)
            #expect(try await get(serve.port, "/metrics").0 == 404)
            let metrics = try await get(port, "/metrics")
            #expect(metrics.0 == 200)
            #expect(metrics.1.contains("pics_serve_requests_total{status=\"200\"} 1"), "\(metrics.1)")
            #expect(!metrics.1.contains("imago_serve_requests_total"))
            let errors = (try? String(contentsOf: serve.folder.appendingPathComponent("stderr.txt"), encoding: .utf8)) ?? ""
            let lines = errors.split(separator: "\n").filter { $0.hasPrefix("{") }
            #expect(!lines.isEmpty, "\(errors)")
            for line in lines {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
                #expect(object?["level"] != nil && object?["msg"] != nil, "\(line)")
            }
        }
    }
}
#endif
