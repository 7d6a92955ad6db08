import Dispatch
import Foundation
import Imago
import ImagoTestSupport
import Testing

/// `loadImage(with:callbackQueue:progress:completion:)`: one call of `completion`, on the queue
/// given, cancellable through the returned task.
@Suite("Completion-handler adapter")
struct CompletionAdapterTests {
    /// What the callbacks saw, in order.
    final class CallbackLog: Sendable {
        private let state = Locked<(events: [String], results: [Result<ImageResponse, ImagePipeline.Error>])>(([], []))

        var events: [String] { state.withLock { $0.events } }
        var results: [Result<ImageResponse, ImagePipeline.Error>] { state.withLock { $0.results } }

        func progress(_ progress: ImageTask.Progress) {
            state.withLock { $0.events.append("progress") }
        }

        func complete(_ result: Result<ImageResponse, ImagePipeline.Error>, onExpectedQueue: Bool) {
            state.withLock { state in
                state.events.append(onExpectedQueue ? "completion" : "completion(wrong queue)")
                state.results.append(result)
            }
        }
    }

    static let queueKey = DispatchSpecificKey<String>()

    static func callbackQueue() -> DispatchQueue {
        let queue = DispatchQueue(label: "imago.tests.callbacks")
        queue.setSpecific(key: queueKey, value: "callbacks")
        return queue
    }

    @Test("Success: progress, then one completion, on the queue given")
    func success() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            let log = CallbackLog()
            let task = pipeline.loadImage(
                with: ImageRequest(url: url), callbackQueue: Self.callbackQueue(), progress: log.progress
            ) { result in
                log.complete(result, onExpectedQueue: DispatchQueue.getSpecific(key: Self.queueKey) == "callbacks")
            }
            #expect(task.request.url == url)
            #expect(await eventually { log.results.count == 1 })
            let response = try #require(try log.results.first?.get())
            #expect(response.container.pixelSize == PixelSize(width: 64, height: 48))
            #expect(log.events.last == "completion")
            #expect(log.events.filter { $0 != "progress" } == ["completion"])
            #expect(log.events.contains("progress"))
        }
    }

    @Test("Failure arrives as the pipeline's error")
    func failure() async throws {
        try await PipelineFixture.with { fixture in
            let url = fixture.server.url(for: "/missing.jpg")
            let pipeline = try fixture.makePipeline()
            let log = CallbackLog()
            pipeline.loadImage(with: ImageRequest(url: url), callbackQueue: Self.callbackQueue()) { result in
                log.complete(result, onExpectedQueue: true)
            }
            #expect(await eventually { log.results.count == 1 })
            #expect(throws: ImagePipeline.Error.httpStatus(url, statusCode: 404)) { try log.results.first?.get() }
        }
    }

    @Test("Cancelling the returned task completes with cancelled, once")
    func cancellation() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            fixture.server.setBehavior("/photo.jpg", .held)
            let pipeline = try fixture.makePipeline()
            let log = CallbackLog()
            let task = pipeline.loadImage(with: ImageRequest(url: url), callbackQueue: Self.callbackQueue()) { result in
                log.complete(result, onExpectedQueue: true)
            }
            #expect(await eventually { fixture.server.requestCount(for: "/photo.jpg") == 1 })
            task.cancel()
            #expect(await eventually { log.results.count == 1 })
            #expect(throws: ImagePipeline.Error.cancelled(url)) { try log.results.first?.get() }
            fixture.server.release("/photo.jpg")
            #expect(task.isCancelled)
            try await Task.sleep(for: .milliseconds(100))
            #expect(log.results.count == 1)
        }
    }

    @Test("The main queue is the default")
    func mainQueueByDefault() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            let log = CallbackLog()
            let mainKey = DispatchSpecificKey<String>()
            DispatchQueue.main.setSpecific(key: mainKey, value: "main")
            pipeline.loadImage(with: ImageRequest(url: url)) { result in
                log.complete(result, onExpectedQueue: DispatchQueue.getSpecific(key: mainKey) == "main")
            }
            #expect(await eventually { log.results.count == 1 })
            #expect(log.events == ["completion"])
        }
    }
}
