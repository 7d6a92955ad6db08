import Foundation
import ImagoTestSupport
import Synchronization
import Testing

@testable import Imago

/// A shared work runs in the task of the caller who starts it when the loader's downloads are
/// bound to no task (``DownloadStarting``): that caller can still leave alone, and the others get
/// the same download.
@Suite("A shared download outlives the caller whose task ran it")
struct SharedDownloadHandoverTests {
    private static let cancelled = ImagePipeline.Error.cancelled(URL(string: "http://example.com/a.jpg")!)
    private typealias Work = @Sendable (InFlightTable<String, Int>.Context) async throws(ImagePipeline.Error) -> Int

    /// Something kept for a hand-over: counts its cancellations.
    private final class Kept: Sendable {
        let cancellations = Atomic(0)
        func cancel() { cancellations.add(1, ordering: .relaxed) }
    }

    /// Starts a caller that runs `work`, waits until the work says it runs (`once`), starts a second
    /// caller that joins it, then cancels the first; returns the second.
    private static func runnerLeaves(
        _ table: InFlightTable<String, Int>,
        work: @escaping Work,
        once started: AsyncStream<Void>
    ) async -> Task<Int, any Error> {
        @Sendable func caller() async throws -> Int {
            try await table.value(for: "k", priority: .normal, cancellation: cancelled, runsInCaller: true, work: work)
        }
        let runner = Task { try await caller() }
        var waiting = started.makeAsyncIterator()
        await waiting.next()
        let other = Task { try await caller() }
        #expect(await eventually { table.waiterCount(for: "k") == 2 })
        runner.cancel()
        await #expect(throws: ImagePipeline.Error.self) { try await runner.value }
        return other
    }

    @Test("The runner leaves while another waits: the work starts again for it and takes over what was kept")
    func tableHandsOver() async throws {
        let table = InFlightTable<String, Int>()
        let kept = Kept()
        let cancelled = Self.cancelled
        let runs = Atomic(0)
        let runnerWaiting = AsyncStream<Void>.makeStream()
        let work: Work = { context throws(ImagePipeline.Error) -> Int in
            if runs.add(1, ordering: .relaxed).newValue == 1 {
                context.keep(kept, cancel: kept.cancel)
                runnerWaiting.continuation.yield()
                // The runner waits until it is cancelled, as a wait for a kept download does.
                try? await Task.sleep(for: .seconds(600))
                throw cancelled
            }
            let found = context.kept(Kept.self) === kept
            context.discardKept()  // it has ended (as a download the takeover waited for has)
            return found ? 42 : -1
        }
        let other = await Self.runnerLeaves(table, work: work, once: runnerWaiting.stream)
        #expect(try await other.value == 42, "the second run found what the first kept")
        #expect(runs.load(ordering: .relaxed) == 2)
        #expect(kept.cancellations.load(ordering: .relaxed) == 0, "taken over, not stopped")
        #expect(table.count == 0)
    }

    @Test("The runner leaves, then everyone else: what was kept is stopped, once")
    func everyoneLeaves() async throws {
        let table = InFlightTable<String, Int>()
        let kept = Kept()
        let cancelled = Self.cancelled
        let runnerWaiting = AsyncStream<Void>.makeStream()
        let work: Work = { context throws(ImagePipeline.Error) -> Int in
            // The takeover finds it kept and waits on it in turn, as a download's takeover does.
            if context.kept(Kept.self) == nil {
                context.keep(kept, cancel: kept.cancel)
                runnerWaiting.continuation.yield()
            }
            try? await Task.sleep(for: .seconds(600))
            throw cancelled
        }
        let other = await Self.runnerLeaves(table, work: work, once: runnerWaiting.stream)
        #expect(kept.cancellations.load(ordering: .relaxed) == 0)
        other.cancel()
        await #expect(throws: ImagePipeline.Error.self) { try await other.value }
        #expect(await eventually { kept.cancellations.load(ordering: .relaxed) == 1 })
        #expect(await eventually { table.count == 0 })
    }

    @Test("Over HTTP: the caller who started the download leaves, the others get that same download")
    func pipelineKeepsTheDownload() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let bytes = try Fixtures.jpeg(width: 64, height: 48, seed: 1)
            fixture.server.setBehavior("/photo.jpg", .held)
            let pipeline = try fixture.makePipeline()
            let request = ImageRequest(url: url)
            let key = ImagePipeline.WorkKey(request.originalKey, request.cachePolicy)
            let first = Task { try await pipeline.data(for: request) }
            #expect(await eventually { fixture.server.requestCount(for: "/photo.jpg") == 1 })
            let others = (0..<2).map { _ in Task { try await pipeline.data(for: request) } }
            #expect(await eventually { pipeline.dataWork.waiterCount(for: key) == 3 })
            first.cancel()
            await #expect(throws: ImagePipeline.Error.cancelled(url)) { try await first.value }
            fixture.server.release("/photo.jpg")
            for other in others {
                let original = try await other.value
                #expect(original.data == bytes && original.source == .network)
            }
            // A download started again for them would have been a second request.
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
        }
    }

    @Test("Over HTTP: the caller who started the download leaves, then the others: the download stops")
    func pipelineStopsTheDownload() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.setBehavior("/endless.jpg", .endless(chunkSize: 1024))
            let url = fixture.server.url(for: "/endless.jpg")
            // Time limits far beyond the test's wait, which is shorter than the body limit (50 MiB)
            // takes to reach at loopback speed: the download stops because everyone left.
            let loader = HTTPClientDataLoader(
                configuration: DataLoader.Configuration(downloadTimeout: .seconds(600), stallTimeout: .seconds(600)))
            var configuration = try fixture.configuration()
            configuration.dataLoader = loader
            let pipeline = ImagePipeline(configuration: configuration)
            let request = ImageRequest(url: url)
            let key = ImagePipeline.WorkKey(request.originalKey, request.cachePolicy)
            let first = Task { try await pipeline.data(for: request) }
            #expect(await eventually { fixture.server.currentRequests == 1 })
            let other = Task { try await pipeline.data(for: request) }
            #expect(await eventually { pipeline.dataWork.waiterCount(for: key) == 2 })
            first.cancel()
            await #expect(throws: ImagePipeline.Error.cancelled(url)) { try await first.value }
            other.cancel()
            await #expect(throws: ImagePipeline.Error.cancelled(url)) { try await other.value }
            #expect(await eventually(within: .seconds(8)) { fixture.server.currentRequests == 0 })
            #expect(await eventually { pipeline.dataWork.count == 0 })
            try await loader.shutdown()
        }
    }
}
