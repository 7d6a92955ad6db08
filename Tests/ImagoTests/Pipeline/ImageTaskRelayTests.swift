import Foundation
import ImagoTestSupport
import MetricsTestKit
import Testing

@testable import Imago

/// What the Combine publishers do, tested here through the relay they are thin shells over: a load
/// that starts at the first demand, previews within the demand, the image, one end, and
/// cancellation.
@Suite struct ImageTaskRelayTests {
    /// What a relay sent: values (`preview:N`, `image:WxH`) and its end (`finished`, `failed:CODE`).
    final class Log: Sendable {
        private let entries = Locked<[String]>([])
        var all: [String] { entries.withLock { $0 } }

        func relay(_ pipeline: ImagePipeline, _ request: ImageRequest, previews: Bool, image: Bool) -> ImageTaskRelay {
            ImageTaskRelay(
                pipeline: pipeline, request: request, sendsPreviews: previews, sendsImage: image,
                receive: { value in
                    switch value {
                    case .preview(let preview): self.entries.withLock { $0.append("preview:\(preview.scanCount)") }
                    case .image(let response): self.entries.withLock { $0.append("image:\(response.container.pixelSize)") }
                    }
                },
                complete: { error in self.entries.withLock { $0.append(error.map { "failed:\($0.code)" } ?? "finished") } })
        }
    }

    @Test func startsAtTheFirstDemandAndSendsTheImageThenTheEnd() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG("/a.jpg", width: 64, height: 48)
            let other = try fixture.serveJPEG("/b.jpg")
            let pipeline = try fixture.makePipeline()
            let log = Log()
            let relay = log.relay(pipeline, ImageRequest(url: url), previews: false, image: true)
            relay.request(0)
            _ = try await pipeline.image(for: ImageRequest(url: other))  // a whole load meanwhile
            #expect(fixture.server.requestCount(for: "/a.jpg") == 0, "no demand, no load")
            relay.request(1)
            #expect(await eventually { log.all.count == 2 })
            #expect(log.all == ["image:64x48", "finished"])
            #expect(fixture.server.requestCount(for: "/a.jpg") == 1)
        }
    }

    @Test func aFailedLoadEndsWithItsError() async throws {
        try await PipelineFixture.with { fixture in
            let pipeline = try fixture.makePipeline()
            let log = Log()
            let relay = log.relay(pipeline, ImageRequest(url: fixture.server.url(for: "/missing.jpg")), previews: false, image: true)
            relay.request(Int.max)
            #expect(await eventually { !log.all.isEmpty })
            #expect(log.all == ["failed:http_status"])
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func previewsWithinTheDemandThenTheEnd() async throws {
        try await PipelineFixture.with { fixture in
            let data = try JPEGEncoder(quality: 0.9, progressive: true).encode(Fixtures.picture(width: 320, height: 240, seed: 2))
            var tracker = JPEGScanTracker()
            var parts: [Int] = []
            for offset in data.indices {
                tracker.consume(data[offset...offset])
                if tracker.completedScans > parts.count { parts.append(offset + 1) }
            }
            fixture.server.set("/p.jpg", data: data, contentType: "image/jpeg")
            fixture.server.setBehavior("/p.jpg", .slices(boundaries: Array(parts.dropLast())))
            let metrics = ImagoTestMetrics()
            var configuration = try fixture.configuration()
            configuration.decodesPreviews = true
            configuration.metricsFactory = metrics.factory
            let pipeline = ImagePipeline(configuration: configuration)
            let log = Log()
            let relay = log.relay(pipeline, ImageRequest(url: fixture.server.url(for: "/p.jpg")), previews: true, image: true)
            relay.request(1)
            #expect(await eventually { log.all == ["preview:1"] })
            // Scan 2's preview is made but not wanted: skipped.
            fixture.server.sendNextSlice("/p.jpg")
            #expect(await eventually { metrics.previewsShown == 2 && relay.previewsHandled == 2 })
            relay.request(10)
            fixture.server.sendNextSlice("/p.jpg")
            #expect(await eventually { log.all.count == 2 })
            fixture.server.sendNextSlice("/p.jpg")
            #expect(await eventually { log.all.count == 3 })
            fixture.server.sendNextSlice("/p.jpg")
            #expect(await eventually { log.all.last == "finished" })
            #expect(log.all == ["preview:1", "preview:3", "preview:4", "image:320x240", "finished"])
        }
    }

    @Test func theImageWaitsForDemand() async throws {
        try await PipelineFixture.with { fixture in
            let data = try JPEGEncoder(quality: 0.9, progressive: true).encode(Fixtures.picture(width: 160, height: 120, seed: 2))
            var tracker = JPEGScanTracker()
            var firstScan = 0
            for offset in data.indices where firstScan == 0 {
                tracker.consume(data[offset...offset])
                if tracker.completedScans == 1 { firstScan = offset + 1 }
            }
            fixture.server.set("/p.jpg", data: data, contentType: "image/jpeg")
            fixture.server.setBehavior("/p.jpg", .slices(boundaries: [firstScan]))
            var configuration = try fixture.configuration()
            configuration.decodesPreviews = true
            let pipeline = ImagePipeline(configuration: configuration)
            let log = Log()
            let url = fixture.server.url(for: "/p.jpg")
            let relay = log.relay(pipeline, ImageRequest(url: url), previews: true, image: true)
            relay.request(1)
            #expect(await eventually { log.all == ["preview:1"] })
            fixture.server.sendNextSlice("/p.jpg")
            // The load ends (the image is in the memory cache) while nobody wants a value.
            #expect(await eventually { pipeline.cachedImage(for: ImageRequest(url: url)) != nil })
            #expect(log.all == ["preview:1"])
            relay.request(1)
            #expect(await eventually { log.all.count == 3 })
            #expect(log.all == ["preview:1", "image:160x120", "finished"])
        }
    }

    @Test func withoutTheImageTheEndComesWhenItArrives() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG("/a.jpg")
            let pipeline = try fixture.makePipeline()
            let log = Log()
            log.relay(pipeline, ImageRequest(url: url), previews: true, image: false).request(1)
            #expect(await eventually { !log.all.isEmpty })
            #expect(log.all == ["finished"])
        }
    }

    @Test func cancellingCancelsTheLoadAndSendsNothingMore() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG("/held.jpg")
            fixture.server.setBehavior("/held.jpg", .held)
            let pipeline = try fixture.makePipeline()
            let log = Log()
            let relay = log.relay(pipeline, ImageRequest(url: url), previews: true, image: true)
            relay.request(1)
            #expect(await eventually { fixture.server.requestCount(for: "/held.jpg") == 1 })
            relay.cancel()
            #expect(await eventually { pipeline.statistics().activeDownloads == 0 }, "the download was cancelled")
            fixture.server.release("/held.jpg")
            _ = try await pipeline.image(for: ImageRequest(url: url, cachePolicy: .reloadIgnoringCache))
            #expect(log.all.isEmpty)
            relay.request(1)
            #expect(fixture.server.requestCount(for: "/held.jpg") == 2, "a cancelled relay never starts again")
        }
    }
}

/// Counts the previews a pipeline showed, through swift-metrics.
final class ImagoTestMetrics: Sendable {
    let factory = TestMetrics()
    var previewsShown: Int64 { factory.counterTotal(label: "imago_previews_total") }
}
