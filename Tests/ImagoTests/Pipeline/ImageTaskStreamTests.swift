import Foundation
import Imago
import ImagoTestSupport
import Testing

/// What an `ImageTask` tells its caller: progress that always ends at 100%, and its own events.
@Suite struct ImageTaskStreamTests {
    @Test("progress ends at 100% for network, memory and disk loads", arguments: ["network", "memory", "disk"])
    func progressEndsComplete(_ source: String) async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            var pipeline = try fixture.makePipeline()
            if source != "network" {
                _ = try await pipeline.image(for: ImageRequest(url: url))
                await pipeline.waitForDiskWrites()
                if source == "disk" { pipeline = try fixture.makePipeline() }
            }
            let task = pipeline.imageTask(with: ImageRequest(url: url))
            var updates: [ImageTask.Progress] = []
            for await update in task.progress { updates.append(update) }
            #expect(try await task.response.source.rawValue == source)
            let last = try #require(updates.last)
            #expect(last.completed == last.total)
            #expect(last.fraction == 1)
        }
    }

    @Test("a task's own events begin with started, however late they are read")
    func eventsBeginWithStarted() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            let task = pipeline.imageTask(with: ImageRequest(url: url))
            _ = try await task.response  // finished before anyone reads the stream
            var names: [String] = []
            for await event in task.events {
                names.append(event)
            }
            #expect(names == ["started", "progress", "completed:network"])

            fixture.server.setBehavior("/gone.jpg", .status(410))
            let failing = pipeline.imageTask(with: ImageRequest(url: fixture.server.url(for: "/gone.jpg")))
            var last: PipelineEvent?
            for await event in failing.events { last = event }
            guard case .failed(_, let error) = last else { Issue.record("ended with \(String(describing: last))"); return }
            #expect(error.code == "http_status")
        }
    }

    @Test("a stream obtained before a request sees that request's start")
    func pipelineEventsSubscribeOnReturn() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            let stream = pipeline.events()
            _ = try await pipeline.image(for: ImageRequest(url: url))
            for await event in stream {
                guard case .started(let started, _) = event else { continue }
                #expect(started == url)
                break
            }
        }
    }
}
