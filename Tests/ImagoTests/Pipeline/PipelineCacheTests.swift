import Foundation
@testable import Imago
import ImagoTestSupport
import Testing

@Suite("pipeline.cache")
struct PipelineCacheTests {
    @Test("cache[url] reads and writes the memory cache; remove forgets memory and disk; removeAll empties both")
    func addressesTheCaches() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let request = ImageRequest(url: url)
            let pipeline = try fixture.makePipeline()
            #expect(pipeline.cache[url] == nil)
            let response = try await pipeline.image(for: url)
            await pipeline.waitForDiskWrites()
            #expect(pipeline.cache[url]?.pixelSize == response.container.pixelSize)
            #expect(await pipeline.cachedOriginal(for: request).flatMap(ImageFormat.sniff) == .jpeg)

            pipeline.cache.remove(request)
            #expect(pipeline.cache[request] == nil)
            #expect(await pipeline.cachedOriginal(for: request) == nil)

            // An image set by hand is what the next load returns, from memory, without the network.
            pipeline.cache[url] = response.container
            #expect(try await pipeline.image(for: url).source == .memory)
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
            pipeline.cache[url] = nil
            #expect(pipeline.cache[url] == nil)
            #expect(try await pipeline.image(for: url).source == .network)
            await pipeline.waitForDiskWrites()
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 2)
            #expect(try fixture.diskEntryCount() == 1)

            pipeline.cache.removeAll()
            #expect(pipeline.cache[url] == nil)
            #expect(try fixture.diskEntryCount() == 0)
        }
    }
}
