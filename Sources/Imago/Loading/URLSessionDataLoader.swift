import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads image bytes with URLSession: the default ``DataLoading`` on Apple platforms, also
/// usable (and tested) on Linux.
///
/// The loader streams every body through its own session's delegate (Linux has no
/// `bytes(from:)`), so the limits apply while bytes arrive. The session is ephemeral and has no
/// `URLCache`, since Imago keeps its own caches. (On Linux, FoundationNetworking still creates an
/// empty `~/.cache/org.swift.foundation.URLCache/<process>` folder when any session configuration
/// is made; no configuration avoids that.) URLSession has no connect timeout of its own: a
/// connection that does not open counts against the stall timeout. Redirects follow `RedirectPolicy`,
/// as with ``HTTPClientDataLoader``: at most 10, never https to http, credentials dropped across origins. Call ``shutdown()`` when done; a released loader invalidates its
/// session.
public final class URLSessionDataLoader: DataLoading {
    /// The limits every download is held to.
    public let configuration: DataLoader.Configuration

    private let session: URLSession
    private let delegate: Delegate

    /// Creates a loader with its own session, limited by `configuration`.
    public init(configuration: DataLoader.Configuration = DataLoader.Configuration()) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // No cookie jar: a cookie one server sets must not travel with requests to others.
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpMaximumConnectionsPerHost = max(1, configuration.maximumConnections)
        sessionConfiguration.timeoutIntervalForRequest = configuration.stallTimeout.timeInterval
        sessionConfiguration.timeoutIntervalForResource = configuration.downloadTimeout.timeInterval
        let queue = OperationQueue()
        queue.name = "Imago.URLSessionDataLoader"
        queue.maxConcurrentOperationCount = 1
        self.delegate = Delegate()
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Cancels the downloads in progress, invalidates the session and waits until it has let go
    /// of its delegate. The loader cannot be used afterwards.
    public func shutdown() async {
        guard delegate.beginShutdown() else { return await delegate.waitUntilInvalid() }
        session.invalidateAndCancel()
        await delegate.waitUntilInvalid()
    }

    /// Downloads whose task has not yet reported its end (tests check it returns to zero).
    public var activeTransferCount: Int { delegate.activeCount }

    /// Downloads `request` with URLSession, within the configured limits and timeouts.
    public func loadData(
        for request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        try await loadData(for: request, observer: DownloadObserver(progress: progress))
    }

    /// Downloads `request` as ``loadData(for:progress:)`` does, showing `observer` the body as it
    /// arrives and what arrived of a body that stops early.
    public func loadData(
        for request: DataLoader.Request, observer: DownloadObserver
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        try DownloadValidator.checkScheme(of: request.url)
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData,
            timeoutInterval: configuration.stallTimeout.timeInterval)
        urlRequest.httpMethod = "GET"
        for (name, value) in DownloadValidator.headers(for: request, configuration: configuration) {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let watchdog = DownloadWatchdog(url: request.url, configuration: configuration)
        let transfer = Transfer(
            validator: DownloadValidator(request: request, configuration: configuration),
            redirects: RedirectPolicy(request: request, headers: DownloadValidator.headers(for: request, configuration: configuration)),
            watchdog: watchdog, observer: observer)
        return try await watchdog.run { [session, delegate, urlRequest] in
            guard let task = delegate.makeTask(for: urlRequest, in: session, handledBy: transfer) else {
                throw ImagePipeline.Error.connectionFailed(request.url, reason: DownloadValidator.shutDownReason)
            }
            // A cancellation may land before, during or after the start: `Transfer` decides under
            // its lock, and a task cancelled before it was resumed is cancelled again afterwards.
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    guard transfer.start(continuation) else {
                        delegate.forget(task)
                        return
                    }
                    task.resume()
                    if transfer.isCancelled { task.cancel() }
                }
            } onCancel: {
                transfer.cancel()
                task.cancel()
            }
        }
    }
}
