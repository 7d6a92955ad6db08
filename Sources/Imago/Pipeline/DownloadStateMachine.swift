import Foundation

/// The decisions of one original's download, as a value: which conditional headers to send when a
/// stale copy can be revalidated, what a response means (fresh bytes, or "your stale copy is still
/// good") and how its bytes may be kept on disk (the one place that reads
/// ``ImagePipeline/Configuration/honoursHTTPCacheHeaders``), and after a failed attempt whether to
/// retry after a wait, serve the stale copy, or fail.
///
/// The pipeline performs what it returns (sleeping, downloading, writing to disk); the rules live
/// here so that they are tested without a server or a clock (`DownloadStateMachineTests`).
struct DownloadStateMachine {
    /// What a response means.
    enum ResponseAction: Equatable {
        /// New bytes: use them, kept on disk as `storage` says.
        case accept(storage: DiskStorage)
        /// 304 Not Modified for the stale copy: serve it and give it the lifetime and validators
        /// of `storage` (the 304's headers), or remove it when `storage` forbids storing (a 304
        /// saying `no-store`, RFC 9111 §4.3.4).
        case refreshStale(storage: DiskStorage)
        /// The response cannot be used.
        case fail(ImagePipeline.Error)
    }

    /// What to do after an attempt failed.
    enum FailureAction: Equatable {
        /// Wait this long, then try again.
        case retry(after: Duration)
        /// Serve the stale copy instead of failing (logged, with the failure).
        case serveStale
        /// Fail with this error (``ImagePipeline/Error/gaveUp(last:attempts:)`` after more than
        /// one attempt).
        case fail(ImagePipeline.Error)
    }

    let url: URL
    let retryPolicy: RetryPolicy
    /// ``ImagePipeline/Configuration/honoursHTTPCacheHeaders``.
    let honoursHTTPCacheHeaders: Bool
    /// ``ImagePipeline/Configuration/servesExpiredEntries``.
    let servesExpiredEntries: Bool
    /// What the stale disk copy's metadata says, when there is one.
    let staleValidators: HTTPCacheHeaders?

    /// Attempts started so far, the first included.
    private(set) var attempts = 0

    init(
        url: URL, retryPolicy: RetryPolicy, honoursHTTPCacheHeaders: Bool, servesExpiredEntries: Bool,
        staleValidators: HTTPCacheHeaders?
    ) {
        self.url = url
        self.retryPolicy = retryPolicy
        self.honoursHTTPCacheHeaders = honoursHTTPCacheHeaders
        self.servesExpiredEntries = servesExpiredEntries
        self.staleValidators = staleValidators
    }

    /// The request's headers, with `If-None-Match`/`If-Modified-Since` added when the stale copy
    /// can be revalidated and HTTP caching is honoured. The caller's own headers win.
    func headers(adding requestHeaders: [String: String]) -> [String: String] {
        guard honoursHTTPCacheHeaders, let staleValidators, staleValidators.canRevalidate else {
            return requestHeaders
        }
        return requestHeaders.merging(staleValidators.conditionalRequestHeaders) { mine, _ in mine }
    }

    /// An attempt begins.
    mutating func startAttempt() {
        attempts += 1
    }

    /// What a response with `statusCode` and `headers` means.
    func response(statusCode: Int, headers: [String: String]) -> ResponseAction {
        let storage = DiskStorage(
            headers: HTTPCacheHeaders(responseHeaders: headers), honoursHTTPCacheHeaders: honoursHTTPCacheHeaders)
        guard statusCode == 304 else { return .accept(storage: storage) }
        // A 304 without a copy to refresh answers a question never asked (a caller's own
        // conditional header): there are no bytes to use.
        guard staleValidators != nil else { return .fail(.httpStatus(url, statusCode: 304)) }
        return .refreshStale(storage: storage)
    }

    /// What to do after the current attempt failed with `error`. `taskCancelled` is whether the
    /// waiting task was cancelled meanwhile; `generator` draws the back-off's jitter.
    func failure(
        _ error: ImagePipeline.Error, taskCancelled: Bool, using generator: inout some RandomNumberGenerator
    ) -> FailureAction {
        if case .cancelled = error { return .fail(error) }
        if taskCancelled { return .fail(.cancelled(url)) }
        if let delay = retryPolicy.delay(after: error, attempt: attempts, using: &generator) {
            return .retry(after: delay)
        }
        if staleValidators != nil, servesExpiredEntries || error.isTransient { return .serveStale }
        return .fail(attempts > 1 ? .gaveUp(last: error, attempts: attempts) : error)
    }
}
