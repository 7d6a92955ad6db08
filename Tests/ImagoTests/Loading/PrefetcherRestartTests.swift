import Foundation
import Imago
import ImagoTestSupport
import Testing

extension LoadingTests {
    /// `ImagePrefetcher`: a prefetch stopped and started again stays under the prefetcher's control.
    @Suite struct PrefetcherRestartTests {
        @Test func aRestartedPrefetchCanStillBeCancelled() async throws {
            try await PipelineFixture.with { fixture in
                let url = try fixture.serveJPEG("/held.jpg")
                fixture.server.setBehavior("/held.jpg", .held)
                let pipeline = try fixture.makePipeline()
                let prefetcher = ImagePrefetcher(pipeline: pipeline)
                let request = ImageRequest(url: url)
                let events = pipeline.events()

                prefetcher.startPrefetching(with: [request])
                #expect(await eventually { fixture.server.requestCount(for: "/held.jpg") == 1 })
                prefetcher.stopPrefetching(with: [request])
                prefetcher.startPrefetching(with: [request])
                #expect(prefetcher.pendingCount == 1)

                // Wait for the first prefetch to end (cancelled); the second is still held.
                var iterator = events.makeAsyncIterator()
                while let event = await iterator.next() {
                    if case .cancelled = event { break }
                }
                // Before the fix, the first prefetch's end removed the second from the table
                // right after its cancelled event; give it ample time to do so.
                _ = await eventually(within: .seconds(2)) { prefetcher.pendingCount == 0 }
                #expect(prefetcher.pendingCount == 1, "the restarted prefetch is no longer tracked")

                prefetcher.stopPrefetching(with: [request])
                #expect(prefetcher.pendingCount == 0)
                // The second prefetch ends cancelled, not with an image, though the server answers.
                fixture.server.release("/held.jpg")
                var ended: PipelineEvent?
                while let event = await iterator.next() {
                    if case .cancelled = event { ended = event; break }
                    if case .completed = event { ended = event; break }
                    if case .failed = event { ended = event; break }
                }
                if case .cancelled = ended {} else { Issue.record("second prefetch ended with \(String(describing: ended))") }
                await pipeline.waitForDiskWrites()
                #expect(pipeline.cachedImage(for: request) == nil)
            }
        }
    }
}
