/// What a ``DataLoading`` implementation tells its caller while one download runs: how far it has
/// come and, for callers that ask, the body as it arrives and what arrived before it stopped.
///
/// ``ImagePipeline`` decodes previews from the body so far (see
/// ``ImagePipeline/Configuration/decodesPreviews``) and keeps what arrived of a download that stopped
/// early to resume it with a range request (``ImagePipeline/Configuration/resumableData``).
///
/// `data` in ``receivedBody`` is the loader's own growing buffer: a caller that keeps it while the
/// download goes on makes the loader's next append copy the whole body, so the pipeline keeps it
/// only while a preview decode needs it.
///
/// Its closures may be called on any thread: ``HTTPClientDataLoader`` calls them on one of
/// AsyncHTTPClient's event loops, which serve other downloads too, so they must return quickly.
public struct DownloadObserver: Sendable {
    /// Told how far the download has come, after each piece of the body.
    public var progress: @Sendable (ImageTask.Progress) -> Void
    /// Told after each piece of the body (before ``progress`` for the same piece): the status and
    /// headers, and every byte of the body so far. `nil` when the caller does not need the body.
    public var receivedBody: (@Sendable (DataLoader.Response) -> Void)?
    /// Told once, before the loader throws, when a download fails after its response head arrived
    /// (a cut connection, a timeout or stall, cancellation): the status and headers, and the
    /// bytes of the body that arrived. `nil` when the caller does not need them.
    public var interrupted: (@Sendable (DataLoader.Response) -> Void)?

    /// An observer of `progress` and, when given, of the body as it arrives and when it stops.
    public init(
        progress: @escaping @Sendable (ImageTask.Progress) -> Void,
        receivedBody: (@Sendable (DataLoader.Response) -> Void)? = nil,
        interrupted: (@Sendable (DataLoader.Response) -> Void)? = nil
    ) {
        self.progress = progress
        self.receivedBody = receivedBody
        self.interrupted = interrupted
    }
}
