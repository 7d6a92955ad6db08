import Dispatch

extension ImagePipeline {
    /// Loads the image for `request` and calls `completion` once with the result, for code that
    /// does not use `async`. Cancel through the returned task: `completion` is then called with
    /// ``ImagePipeline/Error/cancelled(_:)`` (unless the image had already arrived).
    ///
    /// ```swift
    /// let task = pipeline.loadImage(with: ImageRequest(url: url)) { result in
    ///     if case .success(let response) = result { imageView.image = response.image }
    /// }
    /// task.cancel()   // the cell was reused
    /// ```
    ///
    /// - Parameters:
    ///   - request: the image to load.
    ///   - callbackQueue: where `progress` and `completion` run, always asynchronously (even for a
    ///     memory hit). Default: the main queue, for UI code.
    ///   - progress: told how the download advances (never for cache hits).
    ///   - completion: called once with the response or the error (`.cancelled` after ``ImageTask/cancel()``).
    /// - Returns: the load's handle: ``ImageTask/cancel()``, ``ImageTask/priority``.
    @discardableResult
    public func loadImage(
        with request: ImageRequest, callbackQueue: DispatchQueue = .main,
        progress: (@Sendable (ImageTask.Progress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<ImageResponse, Error>) -> Void
    ) -> ImageTask {
        let task = imageTask(with: request)
        Task {
            if let progress {
                // The stream ends when the load does, so every update is queued before the result.
                for await update in task.progress { callbackQueue.async { progress(update) } }
            }
            let result: Result<ImageResponse, Error>
            do throws(Error) {
                result = .success(try await task.response)
            } catch {
                result = .failure(error)
            }
            callbackQueue.async { completion(result) }
        }
        return task
    }
}
