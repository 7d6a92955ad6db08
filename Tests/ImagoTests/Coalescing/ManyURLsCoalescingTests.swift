import Foundation
@testable import Imago
import ImagoTestSupport
import Testing

/// Coalescing across many keys at once: every URL's callers share one download and one decode,
/// however many other URLs are under way and however the callers interleave.
@Suite("Coalescing many URLs")
struct ManyURLsCoalescingTests {
    @Test("100 URLs with 20 callers each, all joined before any answer: 100 downloads, 100 decodes")
    func hundredURLs() async throws {
        try await PipelineFixture.with { fixture in
            let urlCount = 100
            let callersPerURL = 20
            let urls = try (0..<urlCount).map { index in
                let path = "/many/\(index).jpg"
                fixture.server.setBehavior(path, .held)
                return try fixture.serveJPEG(path, width: 32, height: 24, seed: index)
            }
            let decoder = CountingDecoder()
            // No memory cache: every caller must be answered by the shared work, not by a hit.
            var configuration = try fixture.configuration(memoryCache: false)
            configuration.decoders.register(decoder)
            let pipeline = ImagePipeline(configuration: configuration)
            var order = (0..<(urlCount * callersPerURL)).map { $0 % urlCount }
            var random = SplitMix(seed: 7)
            order.shuffle(using: &random)

            try await withThrowingTaskGroup(of: (Int, ImageResponse).self) { group in
                for index in order {
                    group.addTask { (index, try await pipeline.image(for: ImageRequest(url: urls[index]))) }
                }
                let keys = urls.map { ImagePipeline.WorkKey(ImageRequest(url: $0).processedKey, .useCache) }
                let joined = await eventually {
                    keys.allSatisfy { pipeline.imageWork.waiterCount(for: $0) == callersPerURL }
                }
                #expect(joined, "every caller joins its URL's work while the server holds the responses")
                for index in 0..<urlCount { fixture.server.release("/many/\(index).jpg") }
                var answered = [Int](repeating: 0, count: urlCount)
                for try await (index, response) in group {
                    #expect(response.source == .network)
                    #expect(response.container.pixelSize == PixelSize(width: 32, height: 24))
                    answered[index] += 1
                }
                #expect(answered.allSatisfy { $0 == callersPerURL })
            }
            #expect(fixture.server.totalRequestCount == urlCount)
            #expect((0..<urlCount).allSatisfy { fixture.server.requestCount(for: "/many/\($0).jpg") == 1 })
            #expect(decoder.count == urlCount)
        }
    }
}
