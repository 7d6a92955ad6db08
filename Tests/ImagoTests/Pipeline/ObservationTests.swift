import Foundation
import Imago
import ImagoTestSupport
import Synchronization
import Testing

@Suite("Progress, events, prefetching and connectivity")
struct ObservationTests {
    @Test("Progress reaches every coalesced caller, up to the whole body")
    func progressToEveryCaller() async throws {
        try await PipelineFixture.with { fixture in
            let data = try Fixtures.jpeg(width: 400, height: 300)
            fixture.server.set("/p.jpg", data: data, contentType: "image/jpeg")
            fixture.server.setBehavior("/p.jpg", .trickle(bytesPerInterval: data.count / 4 + 1, interval: .milliseconds(40)))
            let url = fixture.server.url(for: "/p.jpg")
            let pipeline = try fixture.makePipeline()
            let seen = Locked<[Int: [ImageTask.Progress]]>([:])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for caller in 0..<3 {
                    group.addTask {
                        _ = try await pipeline.image(for: ImageRequest(url: url)) { update in
                            seen.withLock { $0[caller, default: []].append(update) }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(fixture.server.requestCount(for: "/p.jpg") == 1)
            for caller in 0..<3 {
                let updates = seen.withLock { $0[caller] ?? [] }
                #expect(updates.last == ImageTask.Progress(completed: Int64(data.count), total: Int64(data.count)))
                #expect(updates.count >= 2, "caller \(caller) saw \(updates.count) updates")
            }
        }
    }

    @Test("Events tell each request's start, progress and completion with its source")
    func events() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            let stream = pipeline.events()
            _ = try await pipeline.image(for: ImageRequest(url: url))
            _ = try await pipeline.image(for: ImageRequest(url: url))
            fixture.server.setBehavior("/gone.jpg", .status(410))
            _ = try? await pipeline.image(for: ImageRequest(url: fixture.server.url(for: "/gone.jpg")))
            var names: [String] = []
            for await event in stream {
                names.append(event)
                if names.last?.hasPrefix("failed") == true { break }
            }
            #expect(names == ["started", "progress", "completed:network", "completed:memory", "started", "failed:http_status"])
        }
    }

    @Test("Prefetching warms the caches at low priority and cancels cleanly")
    func prefetching() async throws {
        try await PipelineFixture.with { fixture in
            let pipeline = try fixture.makePipeline()
            let warm = try (0..<4).map { ImageRequest(url: try fixture.serveJPEG("/w\($0).jpg", seed: $0)) }
            let prefetcher = ImagePrefetcher(pipeline: pipeline)
            prefetcher.startPrefetching(with: warm)
            await prefetcher.waitUntilFinished()
            #expect(warm.allSatisfy { pipeline.cachedImage(for: $0) != nil })

            let endless = (0..<3).map { index in
                fixture.server.setBehavior("/e\(index).jpg", .endless(chunkSize: 512))
                return ImageRequest(url: fixture.server.url(for: "/e\(index).jpg"))
            }
            prefetcher.startPrefetching(with: endless)
            #expect(await eventually { fixture.server.currentRequests == 3 && prefetcher.pendingCount == 3 })
            prefetcher.stopPrefetching()
            await prefetcher.waitUntilFinished()
            #expect(prefetcher.pendingCount == 0)
            #expect(await eventually { fixture.server.currentRequests == 0 })
            #expect(pipeline.statistics().activeDownloads == 0)
        }
    }

    @Test("Offline: a request waits for the network, then fails with offline")
    func waitsForConnectivity() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let online = Atomic<Bool>(false)
            let clock = ManualClock()
            var configuration = try fixture.configuration()
            configuration.connectivity = Connectivity { online.load(ordering: .relaxed) }
            configuration.waitsForConnectivity = .seconds(5)
            configuration.clock = clock
            let pipeline = ImagePipeline(configuration: configuration)

            let failing = await drive(clock, until: Task { try await pipeline.image(for: ImageRequest(url: url)) })
            #expect(throws: ImagePipeline.Error.offline(url)) { try failing.get() }
            #expect(clock.now.offset >= .seconds(5))
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 0)

            let recovering = Task { try await pipeline.image(for: ImageRequest(url: url)) }
            await clock.waitForSleepers(count: 1)
            online.store(true, ordering: .relaxed)
            clock.advance(by: .seconds(1))
            #expect(try await recovering.value.source == .network)
        }
    }

    @Test("Statistics report the caches' contents")
    func statistics() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG(width: 10, height: 10)
            let pipeline = try fixture.makePipeline()
            _ = try await pipeline.image(for: ImageRequest(url: url))
            await pipeline.waitForDiskWrites()
            let statistics = pipeline.statistics()
            #expect(statistics.memoryCount == 1)
            #expect(statistics.memoryCost == 10 * 10 * 4)
            #expect(statistics.disk?.entryCount == 1)
            #expect(statistics.activeDownloads == 0 && statistics.queuedDownloads == 0)
        }
    }
}
