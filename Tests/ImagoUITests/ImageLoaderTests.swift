import Foundation
import Imago
import ImagoTestSupport
import Testing
@testable import ImagoUI

@Suite("ImageLoader") @MainActor
struct ImageLoaderTests {
    @Test("loads from the network: loading, then success")
    func loadsFromNetwork() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            let loader = fixture.makeLoader()
            let recorder = PhaseRecorder(loader)

            loader.load(request)
            #expect(loader.phase.summary == "loading")
            try #require(await eventually { loader.phase.response != nil })

            #expect(loader.phase.response?.container.pixelSize == PixelSize(width: 64, height: 48))
            #expect(recorder.phases.first == "loading")
            #expect(recorder.phases.last == "success(network)")
            #expect(recorder.phases.allSatisfy { $0.hasPrefix("loading") || $0 == "success(network)" })
        }
    }

    @Test("loading the same request while it loads or is shown does nothing")
    func duplicateLoadsAreNoOps() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            let loader = fixture.makeLoader()
            let recorder = PhaseRecorder(loader)
            let task = try await fixture.loadWhileOffline(request, with: loader)

            loader.load(ImageRequest(url: request.url))
            loader.load(request)
            #expect(loader.imageTask === task)
            #expect(recorder.phases == ["loading"])

            try #require(await fixture.releaseNetwork { loader.phase.response != nil })
            let settled = recorder.phases
            loader.load(request)
            #expect(recorder.phases == settled)
            #expect(loader.imageTask == nil)
            #expect(fixture.server.requestCount(for: "/a.jpg") == 1)
        }
    }

    @Test("a memory hit is shown inside load, with no loading phase")
    func memoryHitIsSynchronous() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            _ = try await fixture.pipeline.image(for: request)
            let loader = fixture.makeLoader()
            let recorder = PhaseRecorder(loader)

            loader.load(request)

            #expect(loader.phase.response?.source == .memory)
            #expect(recorder.phases == ["success(memory)"])
            #expect(loader.imageTask == nil)
            #expect(fixture.server.requestCount(for: "/a.jpg") == 1)
        }
    }

    @Test("cancel returns to empty and never shows a failure")
    func cancelReturnsToEmpty() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            let loader = fixture.makeLoader()
            let recorder = PhaseRecorder(loader)
            let task = try await fixture.loadWhileOffline(request, with: loader)

            loader.cancel()

            #expect(loader.phase.summary == "empty")
            #expect(task.isCancelled)
            await #expect(throws: ImagePipeline.Error.cancelled(request.url)) { try await task.response }
            await Task.yield()
            #expect(recorder.phases == ["loading", "empty"])
            loader.cancel()
            #expect(recorder.phases == ["loading", "empty"])
        }
    }

    @Test("a failed download ends in the pipeline's error")
    func failureCarriesThePipelineError() async throws {
        try await LoaderFixture.with { fixture in
            let url = fixture.server.url(for: "/missing.jpg")
            let loader = fixture.makeLoader()

            loader.load(ImageRequest(url: url))

            try #require(await eventually { if case .failure = loader.phase { true } else { false } })
            guard case .failure(let error) = loader.phase else { return }
            #expect(error == .pipeline(.httpStatus(url, statusCode: 404)))
            #expect(error.url == url)
        }
    }

    @Test("a changed request cancels the old load first, and the old result never lands")
    func changedRequestCancelsTheOldLoad() async throws {
        try await LoaderFixture.with { fixture in
            let old = try fixture.serveJPEG("/old.jpg", seed: 1)
            fixture.server.setBehavior("/old.jpg", .delay(.seconds(600)))
            let new = try fixture.serveJPEG("/new.jpg", width: 32, height: 24, seed: 2)
            let loader = fixture.makeLoader()
            let recorder = PhaseRecorder(loader)
            loader.load(old)
            try #require(await eventually { fixture.server.requestCount(for: "/old.jpg") == 1 })
            let oldTask = try #require(loader.imageTask)

            loader.load(new)

            #expect(oldTask.isCancelled)
            try #require(await eventually { loader.phase.response != nil }, "phases: \(recorder.phases)")
            #expect(loader.request?.url == new.url)
            #expect(loader.phase.response?.container.pixelSize == PixelSize(width: 32, height: 24))
            // The old download stopped: nothing is left running although its server never answered.
            try #require(await eventually { fixture.pipeline.statistics().activeDownloads == 0 })
            #expect(!recorder.phases.contains { $0 == "empty" || $0.hasPrefix("failure") })
        }
    }

    @Test("the offline hint appears after the delay, not before, and goes when the network is back")
    func offlineHintAfterDelay() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            let loader = fixture.makeLoader()
            fixture.network.isReachable = false
            loader.load(request)
            try #require(await eventually { fixture.clock.sleeperCount >= 1 })

            fixture.clock.advance(by: .milliseconds(490))
            #expect(fixture.clock.sleeperCount == 1)
            #expect(loader.phase.summary == "loading")

            fixture.clock.advance(by: .milliseconds(10))
            try #require(await eventually { loader.phase.isWaitingForNetwork })

            try #require(await eventually { fixture.clock.sleeperCount >= 1 })
            fixture.network.isReachable = true
            fixture.clock.advance(by: .milliseconds(500))
            try #require(await eventually { loader.phase.summary == "loading" })
            loader.cancel()
        }
    }

    @Test("the timeout ends the load with its own error and cancels it")
    func timeoutFailsWithItsOwnError() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/slow.jpg")
            fixture.server.setBehavior("/slow.jpg", .delay(.seconds(600)))
            let loader = fixture.makeLoader(timeout: .seconds(2))
            let recorder = PhaseRecorder(loader)
            loader.load(request)
            let task = try #require(loader.imageTask)
            try #require(await eventually { fixture.clock.sleeperCount >= 2 })

            fixture.clock.advance(by: .milliseconds(1_990))
            #expect(loader.phase.summary.hasPrefix("loading"))
            #expect(!task.isCancelled)

            fixture.clock.advance(by: .milliseconds(10))
            try #require(await eventually { if case .failure = loader.phase { true } else { false } })
            guard case .failure(let error) = loader.phase else { return }
            #expect(error == .timedOut(request.url, after: .seconds(2)))
            #expect(error.description.contains("did not load within 2.0 seconds"))
            #expect(task.isCancelled)
            #expect(recorder.phases.last == "failure(timeout)")
            try #require(await eventually { fixture.pipeline.statistics().activeDownloads == 0 })
        }
    }

    @Test("disappearing cancels by default; appearing starts again at the visible priority")
    func disappearCancelsAndAppearResumes() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            let loader = fixture.makeLoader()
            let recorder = PhaseRecorder(loader)
            fixture.network.isReachable = false
            loader.onAppear()
            loader.load(request)
            let first = try #require(loader.imageTask)
            #expect(first.priority == .high)

            loader.onDisappear()
            #expect(first.isCancelled)
            #expect(loader.phase.summary == "empty")

            loader.onAppear()
            let second = try #require(loader.imageTask)
            #expect(second !== first)
            #expect(second.priority == .high)
            try #require(await fixture.releaseNetwork { loader.phase.response != nil })
            #expect(!recorder.phases.contains { $0.hasPrefix("failure") })

            loader.onDisappear()
            #expect(loader.phase.response != nil)
        }
    }

    @Test("with lowerPriority, disappearing lowers the load and appearing raises it")
    func disappearLowersPriority() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            let loader = fixture.makeLoader(disappearBehavior: .lowerPriority(to: .low))
            fixture.network.isReachable = false
            loader.load(request)
            let task = try #require(loader.imageTask)
            #expect(task.priority == .normal)

            loader.onAppear()
            #expect(task.priority == .high)
            loader.onDisappear()
            #expect(task.priority == .low)
            #expect(!task.isCancelled)
            loader.onAppear()
            #expect(task.priority == .high)
            #expect(loader.imageTask === task)
            loader.cancel()
        }
    }

    @Test("a request more urgent than the visible priority keeps its own")
    func visiblePriorityNeverLowers() async throws {
        try await LoaderFixture.with { fixture in
            var request = try fixture.serveJPEG("/a.jpg")
            request.priority = .veryHigh
            let loader = fixture.makeLoader()
            fixture.network.isReachable = false
            loader.onAppear()
            loader.load(request)
            #expect(loader.imageTask?.priority == .veryHigh)
            loader.cancel()
        }
    }

    @Test("loading nil cancels and forgets the request")
    func loadingNilResets() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            let loader = fixture.makeLoader()
            fixture.network.isReachable = false
            loader.load(request)
            let task = try #require(loader.imageTask)

            loader.load(nil)

            #expect(task.isCancelled)
            #expect(loader.phase.summary == "empty")
            #expect(loader.request == nil)
        }
    }
}
