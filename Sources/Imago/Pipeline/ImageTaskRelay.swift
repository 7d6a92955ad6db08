
/// The work behind a Combine subscription to ``ImagePipeline``'s publishers, kept apart from
/// Combine so that it is tested on Linux: it starts one ``ImageTask`` at the first request for
/// values, passes on the previews (while the subscriber still wants values: a preview beyond its
/// demand is skipped, as intermediate previews are) and the image (held until it is wanted), then
/// the end, once, and cancels the task when the subscriber cancels; nothing is passed on after
/// that. One task's events are in order, so no preview follows the image.
final class ImageTaskRelay: Sendable {
    /// What the subscriber is sent.
    enum Value: Sendable {
        case preview(ImagePreview)
        case image(ImageResponse)
    }

    private struct State: Sendable {
        var task: ImageTask?
        var watcher: Task<Void, Never>?
        /// Values still wanted; `Int.max` stands for unlimited.
        var demand = 0
        var isStarted = false
        var isDone = false
        /// The image, arrived before the subscriber wanted another value.
        var pendingImage: ImageResponse?
        /// Previews the task handed out so far, sent or skipped for want of demand.
        var previewsHandled = 0
    }

    /// Previews the task handed out so far, sent or skipped for want of demand (tests wait on it
    /// instead of on time).
    var previewsHandled: Int { state.withLock { $0.previewsHandled } }

    private let pipeline: ImagePipeline
    private let request: ImageRequest
    private let sendsPreviews: Bool
    private let sendsImage: Bool
    private let receive: @Sendable (Value) -> Void
    private let complete: @Sendable (ImagePipeline.Error?) -> Void
    private let state = Locked(State())

    /// - Parameters:
    ///   - sendsPreviews: whether previews are passed on (they exist only when the pipeline or the
    ///     request decodes them).
    ///   - sendsImage: whether the image is passed on; without it, the end comes when it arrives.
    ///   - receive: told each value, from any thread.
    ///   - complete: told the end once: `nil` for success, or the load's error (never after
    ///     ``cancel()``).
    init(
        pipeline: ImagePipeline, request: ImageRequest, sendsPreviews: Bool, sendsImage: Bool,
        receive: @escaping @Sendable (Value) -> Void, complete: @escaping @Sendable (ImagePipeline.Error?) -> Void
    ) {
        self.pipeline = pipeline
        self.request = request
        self.sendsPreviews = sendsPreviews
        self.sendsImage = sendsImage
        self.receive = receive
        self.complete = complete
    }

    /// The subscriber wants `count` more values (`Int.max`: any number); the first request starts
    /// the load.
    func request(_ count: Int) {
        guard count > 0 else { return }
        let start = state.withLock { state -> Bool in
            guard !state.isDone else { return false }
            let (sum, overflow) = state.demand.addingReportingOverflow(count)
            state.demand = overflow ? Int.max : sum
            defer { state.isStarted = true }
            return !state.isStarted
        }
        if let image = state.withLock({ state in state.demand > 0 ? state.pendingImage.take() : nil }) {
            deliver(image)
            return
        }
        guard start else { return }
        let task = pipeline.imageTask(with: request)
        let watcher = Task { [self] in
            if sendsPreviews {
                for await event in task.events {
                    if case .preview(_, let preview) = event { send(.preview(preview)) }
                }
            }
            do throws(ImagePipeline.Error) {
                let response = try await task.response
                if sendsImage {
                    let wanted = state.withLock { state in
                        if state.demand == 0, !state.isDone { state.pendingImage = response }
                        return state.demand > 0
                    }
                    if wanted { deliver(response) }
                } else {
                    finish(nil)
                }
            } catch {
                finish(error)
            }
        }
        let cancelled = state.withLock { state in
            state.task = task
            state.watcher = watcher
            return state.isDone
        }
        if cancelled {
            task.cancel()
            watcher.cancel()
        }
    }

    /// The subscriber cancelled: the load is cancelled and nothing more is sent.
    func cancel() {
        let (task, watcher) = state.withLock { state in
            state.isDone = true
            return (state.task, state.watcher)
        }
        task?.cancel()
        watcher?.cancel()
    }

    private func send(_ value: Value) {
        let wanted = state.withLock { state -> Bool in
            if case .preview = value { state.previewsHandled += 1 }
            guard !state.isDone, state.demand > 0 else { return false }
            if state.demand != Int.max { state.demand -= 1 }
            return true
        }
        if wanted { receive(value) }
    }

    /// Sends the image, then the end.
    private func deliver(_ response: ImageResponse) {
        send(.image(response))
        finish(nil)
    }

    private func finish(_ error: ImagePipeline.Error?) {
        let first = state.withLock { state in
            defer { state.isDone = true }
            return !state.isDone
        }
        if first { complete(error) }
    }
}
