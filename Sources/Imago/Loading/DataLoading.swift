import Foundation

/// Downloads the bytes of an image. `HTTPClientDataLoader` (Linux) and `URLSessionDataLoader`
/// (Apple, also on Linux) are the implementations shipped; plug in your own for another transport.
public protocol DataLoading: Sendable {
    /// Downloads the whole body for `request`, calling `progress` as bytes arrive.
    ///
    /// Cancelling the calling task stops the download and throws ``ImagePipeline/Error/cancelled(_:)``.
    /// - Throws: ``ImagePipeline/Error``: `unsupportedScheme`, `httpStatus`, `bodyTooLarge`,
    ///   `bodyLengthMismatch`, `timedOut`, `connectionFailed`, `emptyBody`, `cancelled`.
    func loadData(
        for request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
    ) async throws(ImagePipeline.Error) -> DataLoader.Response

    /// Downloads the whole body for `request` as ``loadData(for:progress:)`` does, also showing
    /// `observer` the body as it arrives and what arrived of a download that fails (see
    /// ``DownloadObserver``). A `206 Partial Content` answering a `Range` the request carries is
    /// returned as it came, with only the bytes it holds.
    ///
    /// The default implementation calls ``loadData(for:progress:)`` with the observer's progress
    /// only: a loader without its own implementation works as before, and simply gets no
    /// previews and no resumed downloads. Both loaders shipped with Imago implement it.
    func loadData(
        for request: DataLoader.Request, observer: DownloadObserver
    ) async throws(ImagePipeline.Error) -> DataLoader.Response
}

extension DataLoading {
    /// Calls ``loadData(for:progress:)`` with `observer`'s progress: no body as it arrives, nothing
    /// kept of an interrupted download.
    public func loadData(
        for request: DataLoader.Request, observer: DownloadObserver
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        try await loadData(for: request, progress: observer.progress)
    }
}

