import Foundation
import Imago
import ImagoTestSupport
import Testing

@Suite("Scheduling: concurrency limit and priorities")
struct SchedulingTests {
    @Test("Never more downloads in flight than the limit")
    func concurrencyLimit() async throws {
        try await PipelineFixture.with { fixture in
            var configuration = try fixture.configuration()
            configuration.maximumConcurrentDownloads = 3
            configuration.dataLoader = ImagePipeline.Configuration.makeDefaultDataLoader(
                configuration: DataLoader.Configuration(maximumConnections: 8))
            let pipeline = ImagePipeline(configuration: configuration)
            let urls = try (0..<12).map { index in
                let url = try fixture.serveJPEG("/\(index).jpg", seed: index)
                fixture.server.setBehavior("/\(index).jpg", .delay(.milliseconds(100)))
                return url
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for url in urls { group.addTask { _ = try await pipeline.image(for: ImageRequest(url: url)) } }
                try await group.waitForAll()
            }
            #expect(fixture.server.totalRequestCount == 12)
            #expect(fixture.server.maximumConcurrentRequests <= 3)
            #expect(fixture.server.maximumConcurrentRequests >= 2)
        }
    }

    @Test("When the queue is full, higher priority is served first, and a raised priority takes effect", .timeLimit(.minutes(5)))
    func priorities() async throws {
        try await PipelineFixture.with { fixture in
            var configuration = try fixture.configuration()
            configuration.maximumConcurrentDownloads = 1
            let pipeline = ImagePipeline(configuration: configuration)
            fixture.server.setBehavior("/blocker.jpg", .delay(.milliseconds(300)))
            let blocker = try fixture.serveJPEG("/blocker.jpg")
            let order = Locked<[String]>([])

            var finished: [Task<Void, Never>] = []
            func start(_ name: String, _ priority: ImageRequest.Priority) throws -> ImageTask {
                let url = try fixture.serveJPEG("/\(name).jpg", seed: name.count)
                // Each download outlasts the decode before it, so completions follow download order.
                fixture.server.setBehavior("/\(name).jpg", .delay(.milliseconds(50)))
                let task = pipeline.imageTask(with: ImageRequest(url: url, priority: priority))
                finished.append(Task {
                    _ = try? await task.response
                    order.withLock { $0.append(name) }
                })
                return task
            }
            let first = pipeline.imageTask(with: ImageRequest(url: blocker))
            #expect(await eventually { pipeline.statistics().activeDownloads == 1 })
            _ = try start("low-a", .low)
            let lowB = try start("low-b", .low)
            _ = try start("normal", .normal)
            _ = try start("high", .high)
            #expect(await eventually { pipeline.statistics().queuedDownloads == 4 })
            lowB.priority = .veryHigh
            _ = try await first.response
            // Awaited, not polled: under a sanitizer on two busy cores a download can take longer
            // than any polling window, and the order is what this test is about.
            for task in finished { await task.value }
            #expect(order.withLock { $0 } == ["low-b", "high", "normal", "low-a"])
        }
    }

    @Test("A request cancelled while queued leaves the queue and never reaches the server")
    func cancelWhileQueued() async throws {
        try await PipelineFixture.with { fixture in
            var configuration = try fixture.configuration()
            configuration.maximumConcurrentDownloads = 1
            let pipeline = ImagePipeline(configuration: configuration)
            fixture.server.setBehavior("/blocker.jpg", .held)
            let blocker = Task { try await pipeline.image(for: ImageRequest(url: try fixture.serveJPEG("/blocker.jpg"))) }
            #expect(await eventually { fixture.server.requestCount(for: "/blocker.jpg") == 1 })
            let queuedURL = try fixture.serveJPEG("/queued.jpg", seed: 2)
            let queued = Task { try await pipeline.image(for: ImageRequest(url: queuedURL)) }
            #expect(await eventually { pipeline.statistics().queuedDownloads == 1 })
            queued.cancel()
            await #expect(throws: ImagePipeline.Error.cancelled(queuedURL)) { try await queued.value }
            #expect(pipeline.statistics().queuedDownloads == 0)
            fixture.server.release("/blocker.jpg")
            _ = try await blocker.value
            #expect(fixture.server.requestCount(for: "/queued.jpg") == 0)
            #expect(pipeline.statistics().activeDownloads == 0)
        }
    }
}
