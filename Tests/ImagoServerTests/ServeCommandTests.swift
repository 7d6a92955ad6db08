#if os(Linux)
import AsyncHTTPClient
import Foundation
import ImagoTestSupport
import Testing

/// `imago serve` as operators start it: `/metrics` on its own port, the open-files limit raised.
@Suite struct ServeCommandTests {
    @Test func metricsMoveToTheirOwnPortAndTheFileLimitIsRaised() async throws {
        try await withServeProcess(arguments: ["--allow-unsigned", "--metrics-port", "0"]) { serve, client in
            let output = serve.folder.appendingPathComponent("stdout.txt")
            var metricsPort: Int?
            _ = await eventually(within: .seconds(30)) {
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                guard let range = text.range(of: "metrics on http://127.0.0.1:") else { return false }
                metricsPort = Int(text[range.upperBound...].prefix { $0.isNumber })
                return true
            }
            let port = try #require(metricsPort, "imago serve did not print its metrics port")
            let get: (Int, String) async throws -> (status: Int, body: String, nosniff: String?) = { port, path in
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1024 * 1024)
                return (Int(response.status.code), String(decoding: body.readableBytesView, as: UTF8.self),
                    response.headers.first(name: "x-content-type-options"))
            }
            let health = try await get(serve.port, "/healthz")
            #expect(health.status == 200 && health.nosniff == "nosniff")
            let moved = try await get(serve.port, "/metrics")
            #expect(moved.status == 404)
            let metrics = try await get(port, "/metrics")
            #expect(metrics.status == 200)
            // Both requests to the serving port are counted, the 404 too.
            #expect(metrics.body.contains("imago_serve_requests_total{status=\"200\"} 1"), "\(metrics.body)")
            #expect(metrics.body.contains("imago_serve_requests_total{status=\"404\"} 1"), "\(metrics.body)")
            // The soft open-files limit is the hard one.
            let limits = try String(contentsOfFile: "/proc/\(serve.process.processIdentifier)/limits", encoding: .utf8)
            let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
            let numbers = line.split(separator: " ").compactMap { Int($0) }
            #expect(numbers.count == 2 && numbers[0] == numbers[1], "\(line)")
        }
    }
}
#endif
