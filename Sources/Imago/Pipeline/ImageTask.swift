
/// A handle on one image load: await its ``response``, watch its ``progress``, change its
/// ``priority``, or ``cancel()`` it.
///
/// The load starts when the task is made. Cancelling it cancels only this caller's interest: the
/// shared download goes on while other callers still wait for the same image.
public final class ImageTask: Sendable {
    /// What is being loaded.
    public let request: ImageRequest
    /// Download progress, ending when the load ends. One consumer at a time. A successful load
    /// always ends with an element whose `completed` equals its `total` (the encoded size, or 0
    /// for a memory hit), so a progress bar reaches 100% whatever the source.
    public let progress: AsyncStream<ImageTask.Progress>
    /// This load's own events: `started`, any `progress` and, when the request shows previews
    /// (``ImagePipeline/Configuration/decodesPreviews``), each `preview`, then `completed`, `failed`
    /// or `cancelled`; no preview comes after the end. Buffered from the moment the task is made,
    /// so a consumer that starts reading late still begins with `started` and misses nothing
    /// (previews are images: read them, or end the task, rather than let them pile up). One
    /// consumer at a time.
    public let events: AsyncStream<PipelineEvent>

    private let task: Task<Result<ImageResponse, ImagePipeline.Error>, Never>
    private let place: Place

    /// The caller's place among the waiters of the shared work, once it has joined, and the
    /// priority it should have there.
    private final class Place: Sendable {
        let state: Locked<(
            handle: InFlightTable<ImagePipeline.WorkKey, ImageResponse>.WaiterHandle?, priority: ImageRequest.Priority
        )>

        init(priority: ImageRequest.Priority) { state = Locked((nil, priority)) }
    }

    init(request: ImageRequest, pipeline: ImagePipeline) {
        self.request = request
        let (progress, continuation) = AsyncStream.makeStream(
            of: ImageTask.Progress.self, bufferingPolicy: .bufferingNewest(64))
        self.progress = progress
        let (events, eventContinuation) = AsyncStream.makeStream(of: PipelineEvent.self, bufferingPolicy: .unbounded)
        self.events = events
        eventContinuation.yield(.started(request.url, key: request.processedKey))
        let place = Place(priority: request.priority)
        self.place = place
        var preview: (@Sendable (ImagePreview) -> Void)?
        if pipeline.decodesPreviews(for: request) {
            preview = { eventContinuation.yield(.preview(request.url, $0)) }
        }
        self.task = Task(priority: request.priority.taskPriority) { [place, preview] in
            defer {
                continuation.finish()
                eventContinuation.finish()
            }
            do throws(ImagePipeline.Error) {
                let response = try await pipeline.image(
                    for: request,
                    progress: {
                        continuation.yield($0)
                        eventContinuation.yield(.progress(request.url, $0))
                    },
                    preview: preview,
                    onWaiting: { handle in
                        let priority = place.state.withLock { place in
                            place.handle = handle
                            return place.priority
                        }
                        if priority != request.priority { handle.updatePriority(priority) }
                    })
                let size = Int64(response.encodedByteCount ?? 0)
                continuation.yield(ImageTask.Progress(completed: size, total: size))
                eventContinuation.yield(.completed(request.url, source: response.source, timing: response.timing))
                return .success(response)
            } catch {
                if case .cancelled = error {
                    eventContinuation.yield(.cancelled(request.url))
                } else {
                    eventContinuation.yield(.failed(request.url, error))
                }
                return .failure(error)
            }
        }
    }

    /// The load's priority. Raising it while the download waits moves it ahead in the queue;
    /// shared work runs at the highest priority of its callers.
    public var priority: ImageRequest.Priority {
        get { place.state.withLock { $0.priority } }
        set {
            let handle = place.state.withLock { place in
                place.priority = newValue
                return place.handle
            }
            handle?.updatePriority(newValue)
        }
    }

    /// The loaded image, or the error that ended the load.
    public var response: ImageResponse {
        get async throws(ImagePipeline.Error) { try await task.value.get() }
    }

    /// Stops waiting for the image; ``response`` then throws ``ImagePipeline/Error/cancelled(_:)``.
    public func cancel() { task.cancel() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }
}
