#if os(Linux)
import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import Testing

@testable import ImagoServer

/// `/metrics` moved off the serving port: the main application without it, and a metrics-only
/// application on its own port (`imago serve --metrics-port`), run together.
@Suite struct MetricsApplicationTests {
    @Test func metricsMoveToTheirOwnPort() async throws {
        var configuration = ServerTests.local
        configuration.logger = Logger(label: "imago.serve.test", factory: { _ in SwiftLogNoOpLogHandler() })
        let proxy = ImageProxy.testing(configuration)
        let (ports, continuation) = AsyncStream<(String, Int)>.makeStream()
        let main = ImagoServer.application(
            proxy: proxy, port: 0, configuration: ImagoServer.Configuration(servesMetrics: false)
        ) { continuation.yield(("main", $0)) }
        let metrics = ImagoServer.metricsApplication(proxy: proxy, port: 0) { continuation.yield(("metrics", $0)) }
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: main), .init(service: metrics)], logger: configuration.logger))
        let task = Task { try await group.run() }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            var bound: [String: Int] = [:]
            for await (name, port) in ports {
                bound[name] = port
                if bound.count == 2 { break }
            }
            let mainPort = try #require(bound["main"])
            let metricsPort = try #require(bound["metrics"])
            #expect(mainPort != metricsPort)
            func get(_ port: Int, _ path: String) async throws -> (Int, String, String?) {
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1024 * 1024)
                return (Int(response.status.code), String(buffer: body), response.headers.first(name: "x-content-type-options"))
            }
            #expect(try await get(mainPort, "/healthz").0 == 200)
            #expect(try await get(mainPort, "/metrics").0 == 404, "the main port no longer serves /metrics")
            let (status, text, noSniff) = try await get(metricsPort, "/metrics")
            #expect(status == 200)
            #expect(text.contains("imago_serve_requests_total{status=\"200\"} 1"), "\(text)")
            #expect(text.contains("imago_serve_open_connections"))
            #expect(noSniff == "nosniff")
            #expect(try await get(metricsPort, "/healthz").0 == 404, "the metrics port serves only /metrics")
            #expect(try await get(metricsPort, "/insecure/w:10/plain/x").0 == 404, "nor the proxy")
        } catch {
            await group.triggerGracefulShutdown()
            try? await client.shutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await task.value
        try await client.shutdown()
        await proxy.shutdown()
    }
}
#endif
