import Foundation
import Imago
import ImagoTestSupport
import Testing

/// A lenient decode says so: the response carries its repairs, the pipeline logs them once at
/// `notice`, and a clean image logs nothing.
@Suite("Repairs of a damaged image are reported and logged once")
struct RepairReportTests {
    @Test func aDamagedImageIsLoggedOnceAtNoticeWithItsRepairs() async throws {
        try await PipelineFixture.with { fixture in
            let whole = try Fixtures.jpeg(width: 320, height: 240, seed: 8)
            fixture.server.set("/cut.jpg", data: whole.prefix(whole.count / 2), contentType: "image/jpeg")
            let log = LogRecorder()
            var configuration = try fixture.configuration()
            configuration.logger = log.logger
            let pipeline = ImagePipeline(configuration: configuration)
            let url = fixture.server.url(for: "/cut.jpg")
            // Three callers share one download and one decode: one log line.
            async let first = pipeline.image(for: ImageRequest(url: url))
            async let second = pipeline.image(for: ImageRequest(url: url))
            async let third = pipeline.image(for: ImageRequest(url: url))
            let responses = try await [first, second, third]
            for response in responses {
                #expect(!response.repairs.isEmpty)
                #expect(response.repairs == response.container.repairs)
            }
            // A memory hit hands back the same container, repairs and all, and logs nothing new.
            let hit = try await pipeline.image(for: ImageRequest(url: url))
            #expect(hit.source == .memory)
            #expect(hit.repairs == responses[0].repairs)
            let notices = log.all.filter { $0.contains("damaged") }
            #expect(notices.count == 1, "\(log.all)")
            #expect(log.count(at: .notice) >= 1)
            #expect(notices.first?.contains("rows") == true, "\(notices)")
        }
    }

    @Test func theStrictDecodingPolicyRefusesTheDamagedImage() async throws {
        try await PipelineFixture.with { fixture in
            let whole = try Fixtures.jpeg(width: 320, height: 240, seed: 8)
            fixture.server.set("/cut.jpg", data: whole.prefix(whole.count / 2), contentType: "image/jpeg")
            var configuration = try fixture.configuration()
            configuration.decodingPolicy = .strict
            let pipeline = ImagePipeline(configuration: configuration)
            let error = await #expect(throws: ImagePipeline.Error.self) {
                try await pipeline.image(for: ImageRequest(url: fixture.server.url(for: "/cut.jpg")))
            }
            guard case .decodingFailed(_, .jpeg, _)? = error else {
                Issue.record("expected decodingFailed, got \(String(describing: error))")
                return
            }
            await pipeline.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 0)  // bytes that failed to decode are not stored
        }
    }

    @Test func aThumbnailOfADamagedImageKeepsTheRepairs() async throws {
        try await PipelineFixture.with { fixture in
            let whole = try Fixtures.jpeg(width: 320, height: 240, seed: 8)
            fixture.server.set("/cut.jpg", data: whole.prefix(whole.count / 2), contentType: "image/jpeg")
            let pipeline = try fixture.makePipeline()
            let response = try await pipeline.image(
                for: ImageRequest(url: fixture.server.url(for: "/cut.jpg"), maximumPixelSize: 64))
            #expect(response.container.pixelSize.width <= 64)
            #expect(!response.repairs.isEmpty)
        }
    }

    @Test func aCleanImageHasNoRepairsAndLogsNoNotice() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let log = LogRecorder()
            var configuration = try fixture.configuration()
            configuration.logger = log.logger
            let response = try await ImagePipeline(configuration: configuration).image(for: ImageRequest(url: url))
            #expect(response.repairs.isEmpty)
            #expect(!log.all.contains { $0.contains("damaged") })
        }
    }
}
