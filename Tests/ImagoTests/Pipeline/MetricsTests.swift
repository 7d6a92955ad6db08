import Foundation
import Imago
import ImagoTestSupport
import MetricsTestKit
import Testing

@Suite("Metrics")
struct MetricsTests {
    @Test("Hits and misses per layer, bytes downloaded, durations and errors by code are counted")
    func counts() async throws {
        try await PipelineFixture.with { fixture in
            let metrics = TestMetrics()
            let data = try Fixtures.jpeg(width: 30, height: 20)
            fixture.server.set("/m.jpg", data: data, contentType: "image/jpeg")
            fixture.server.setBehavior("/missing.jpg", .status(404))
            var configuration = try fixture.configuration()
            configuration.metricsFactory = metrics
            configuration.retryPolicy = .never
            let pipeline = ImagePipeline(configuration: configuration)
            let url = fixture.server.url(for: "/m.jpg")

            _ = try await pipeline.image(for: ImageRequest(url: url))  // memory miss, disk miss, download
            _ = try await pipeline.image(for: ImageRequest(url: url))  // memory hit
            await #expect(throws: ImagePipeline.Error.self) {
                try await pipeline.image(for: ImageRequest(url: fixture.server.url(for: "/missing.jpg")))
            }

            let lookups = "imago_cache_lookups_total"
            #expect(metrics.counterTotal(label: lookups, dimensions: [("layer", "memory"), ("result", "hit")]) == 1)
            #expect(metrics.counterTotal(label: lookups, dimensions: [("layer", "memory"), ("result", "miss")]) == 2)
            #expect(metrics.counterTotal(label: lookups, dimensions: [("layer", "disk"), ("result", "miss")]) == 2)
            #expect(metrics.counterTotal(label: "imago_downloaded_bytes_total") == Int64(data.count))
            #expect(metrics.counterTotal(label: "imago_errors_total", dimensions: [("code", "http_status")]) == 1)
            #expect(try metrics.expectTimer("imago_download_duration_seconds").values.count == 1)
            #expect(try metrics.expectTimer("imago_decode_duration_seconds").values.count == 1)
        }
    }
}
