/// A handle on one image load: await its ``response``, watch its ``progress``, or ``cancel()`` it.
///
/// The load starts when the task is made. Cancelling it cancels only this caller's interest: the
/// shared download goes on while other callers still wait for the same image.
public final class ImageTask: Sendable {
    /// What is being loaded.
    public let request: ImageRequest
    /// Download progress, ending when the load ends. One consumer at a time; it stays empty for
    /// a memory or disk hit.
    public let progress: AsyncStream<DownloadProgress>

    private let task: Task<Result<ImageResponse, ImagePipeline.Error>, Never>

    init(request: ImageRequest, pipeline: ImagePipeline) {
        self.request = request
        let (progress, continuation) = AsyncStream.makeStream(
            of: DownloadProgress.self, bufferingPolicy: .bufferingNewest(64))
        self.progress = progress
        self.task = Task(priority: request.priority.taskPriority) {
            defer { continuation.finish() }
            do throws(ImagePipeline.Error) {
                return .success(
                    try await pipeline.image(for: request, progress: { continuation.yield($0) }))
            } catch {
                return .failure(error)
            }
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
