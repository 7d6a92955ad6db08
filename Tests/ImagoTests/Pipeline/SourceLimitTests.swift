import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// A request's own source limits: bytes refused from `Content-Length`, while streaming and from
/// disk, pixels from the header; each with `sourceTooLarge` and its figures.
@Suite("pipeline.sourceLimits")
struct SourceLimitTests {
    @Test("bytes: from Content-Length, while streaming, and from disk")
    func bytes() async throws {
        try await PipelineFixture.with { fixture in
            let data = try Fixtures.jpeg(width: 64, height: 48, seed: 2)
            fixture.server.set("/photo.jpg", data: data, contentType: "image/jpeg")
            let url = fixture.server.url(for: "/photo.jpg")
            var request = ImageRequest(url: url)
            request.maximumSourceByteCount = 100
            let pipeline = try fixture.makePipeline()
            await #expect(throws: ImagePipeline.Error.sourceTooLarge(url, .bytes(limit: 100, actual: data.count))) {
                try await pipeline.image(for: request)
            }
            fixture.server.setBehavior("/photo.jpg", .chunked(chunkSize: 64))
            await #expect(throws: ImagePipeline.Error.sourceTooLarge(url, .bytes(limit: 100, actual: nil))) {
                try await pipeline.image(for: request)
            }
            // Stored without a limit, then refused from disk (no network: the server is gone).
            fixture.server.setBehavior("/photo.jpg", .normal)
            _ = try await pipeline.image(for: ImageRequest(url: url))
            await pipeline.waitForDiskWrites()
            fixture.server.remove("/photo.jpg")
            let fromDisk = try fixture.makePipeline(memoryCache: false)
            await #expect(throws: ImagePipeline.Error.sourceTooLarge(url, .bytes(limit: 100, actual: data.count))) {
                try await fromDisk.image(for: request)
            }
            request.maximumSourceByteCount = data.count
            #expect(try await fromDisk.image(for: request).source == .disk, "at the limit is allowed")
        }
    }

    @Test("pixels: from the header, before any decode", arguments: [nil, 32])
    func pixels(thumbnail: Int?) async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG(width: 64, height: 48)
            var request = ImageRequest(url: url, maximumPixelSize: thumbnail)
            request.maximumSourcePixelCount = 1_000
            let pipeline = try fixture.makePipeline()
            await #expect(throws: ImagePipeline.Error.sourceTooLarge(url, .pixels(limit: 1_000, width: 64, height: 48))) {
                try await pipeline.image(for: request)
            }
            #expect(pipeline.statistics().decodeCount == 0)
            request.maximumSourcePixelCount = 64 * 48
            #expect(try await pipeline.image(for: request).container.pixelSize.width == thumbnail ?? 64)
        }
    }
}
