/// A ``DataLoading`` whose downloads run bound to no task: started by one call, waited for by
/// another, stopped by ``StartedDownload/cancel()``.
///
/// The pipeline runs a shared download in the task of its first caller, saving the task of its
/// own and the trip back to the caller that a download in another task costs. With a loader like
/// this, that caller can still leave alone: its wait ends, the download goes on, and a task of the
/// callers still waiting takes it over. Other loaders' downloads run in a task of their own.
package protocol DownloadStarting: DataLoading {
    /// Starts downloading `request`, showing `observer` what arrives, and returns once it is under
    /// way; from then on no task's cancellation stops it (the calling task's, before, does).
    func startDownload(for request: DataLoader.Request, observer: DownloadObserver) async throws(ImagePipeline.Error) -> any StartedDownload
}

/// A download under way, started by ``DownloadStarting/startDownload(for:observer:)``.
package protocol StartedDownload: AnyObject, Sendable {
    /// Waits until the download ends and returns its response, or throws why it failed.
    ///
    /// - Parameter cancelling: whether the waiting task's cancellation cancels the download (as
    ///   ``DataLoading/loadData(for:progress:)`` does), or only ends this wait with
    ///   ``ImagePipeline/Error/cancelled(_:)``, the download going on for whoever waits next.
    ///   One task waits at a time.
    func response(cancelling: Bool) async throws(ImagePipeline.Error) -> DataLoader.Response

    /// Stops the download; a wait under way or to come throws ``ImagePipeline/Error/cancelled(_:)``
    /// (unless it has ended already). From any thread.
    func cancel()
}
