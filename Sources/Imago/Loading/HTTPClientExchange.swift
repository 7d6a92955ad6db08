#if os(Linux)
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One request and its response over AsyncHTTPClient's callback API: the head and every piece of
/// the body are taken on the request's event loop as they arrive, checked by a
/// ``DownloadValidator`` and shown to the ``DownloadObserver`` there, and the stall and download
/// limits are a timer on the same loop.
///
/// Why callbacks, not the async API: the async API reads the body in a task (one trip through the
/// executor for each piece) and needs another task beside it to enforce the limits; an exchange
/// needs neither, and tells its outcome to one waiter, which is the only time a task resumes.
/// A redirect ends the exchange at its head: the body of a redirect is not read.
final class HTTPClientExchange: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = Void

    /// How the exchange ended.
    enum Outcome: Sendable {
        /// The server redirected (a status ``RedirectPolicy`` follows, with a `Location`).
        case redirect(status: Int, location: String)
        /// The checked response: the status, the headers and the whole body.
        case response(DataLoader.Response)
    }

    // `@unchecked Sendable`: AsyncHTTPClient calls every delegate method on `task.eventLoop`, and
    // the limit timer runs there too, so the state below is only touched on that loop; what
    // other threads touch (the request, to cancel it) is behind `control`'s lock.
    private var validator: DownloadValidator
    private let observer: DownloadObserver
    private let watchdog: DownloadWatchdog
    private let url: URL
    /// Told the outcome once; `nil` afterwards.
    private var completion: ((Result<Outcome, ImagePipeline.Error>) -> Void)?
    /// The limit that ran out, when the timer cancelled the request.
    private var expired: ImagePipeline.Error?
    private let control = Locked(Control())

    private struct Control: @unchecked Sendable {
        var task: HTTPClient.Task<Void>?
        var timer: Scheduled<Void>?
        var isCancelled = false
        var isFinished = false
    }

    private init(
        url: URL, validator: DownloadValidator, observer: DownloadObserver, watchdog: DownloadWatchdog,
        completion: @escaping (Result<Outcome, ImagePipeline.Error>) -> Void
    ) {
        self.url = url
        self.validator = validator
        self.observer = observer
        self.watchdog = watchdog
        self.completion = completion
    }

    /// Sends `request` with `client` and calls `completion` once, on the request's event loop
    /// (or on this thread, when the request cannot be sent), with how it ended.
    ///
    /// The exchange is bound to no task: ``cancel()`` stops it. `deadline` is the whole download's.
    static func start(
        _ request: HTTPClient.Request, client: HTTPClient, deadline: NIODeadline, url: URL,
        validator: DownloadValidator, observer: DownloadObserver, watchdog: DownloadWatchdog,
        completion: @escaping @Sendable (Result<Outcome, ImagePipeline.Error>) -> Void
    ) -> HTTPClientExchange {
        let exchange = HTTPClientExchange(
            url: url, validator: validator, observer: observer, watchdog: watchdog, completion: completion)
        let task = client.execute(request: request, delegate: exchange, eventLoop: .indifferent, deadline: deadline)
        let cancelled = exchange.control.withLock { control -> Bool in
            control.task = task
            return control.isCancelled
        }
        if cancelled {
            task.cancel()
        } else {
            exchange.scheduleTimer(on: task.eventLoop)
        }
        return exchange
    }

    /// Stops the exchange: its completion is told ``ImagePipeline/Error/cancelled(_:)`` (unless it
    /// has ended already). From any thread.
    func cancel() {
        let task = control.withLock { control -> HTTPClient.Task<Void>? in
            control.isCancelled = true
            return control.task
        }
        task?.cancel()
    }

    // MARK: Limits

    /// Wakes when the next limit could run out; silence is counted from the download's start.
    private func scheduleTimer(on eventLoop: any EventLoop) {
        let wake = watchdog.nextWake
        let delay = ContinuousClock.now.duration(to: wake)
        let timer = eventLoop.scheduleTask(in: TimeAmount(max(delay, .zero))) { [self] in
            checkLimits(wake: wake, on: eventLoop)
        }
        // Kept to be cancelled when the exchange ends; one that ended meanwhile cancels it here,
        // so that a finished exchange is not kept alive until its timer would have fired.
        let finished = control.withLock { control -> Bool in
            if !control.isFinished { control.timer = timer }
            return control.isFinished
        }
        if finished { timer.cancel() }
    }

    private func checkLimits(wake: ContinuousClock.Instant, on eventLoop: any EventLoop) {
        guard completion != nil else { return }
        watchdog.credit(wake: wake, woke: .now)
        if let limit = watchdog.expiredLimit() {
            expired = limit
            control.withLock { $0.task }?.cancel()
        } else {
            scheduleTimer(on: eventLoop)
        }
    }

    // MARK: HTTPClientResponseDelegate (on the request's event loop)

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        watchdog.noteActivity()
        let status = Int(head.status.code)
        if RedirectPolicy.redirectStatuses.contains(status), let location = head.headers.first(name: "location") {
            finish(.success(.redirect(status: status, location: location)))
            task.cancel()  // the redirect's body is not wanted
            return task.eventLoop.makeSucceededVoidFuture()
        }
        do {
            try validator.receive(statusCode: status, headers: head.headers.lazy.map { ($0.name, $0.value) })
        } catch {
            finish(.failure(error))
            task.cancel()
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        guard completion != nil else { return task.eventLoop.makeSucceededVoidFuture() }
        watchdog.noteActivity()
        do {
            try validator.receive(buffer.readableBytesView)
        } catch {
            reportInterrupted()
            finish(.failure(error))
            task.cancel()
            return task.eventLoop.makeSucceededVoidFuture()
        }
        if let receivedBody = observer.receivedBody, let received = validator.received { receivedBody(received) }
        observer.progress(validator.progress)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        guard completion != nil else { return }
        do {
            finish(.success(.response(try validator.finish())))
        } catch {
            finish(.failure(error))
        }
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        guard completion != nil else { return }
        reportInterrupted()
        finish(.failure(expired ?? translated(error)))
    }

    /// Shows the observer what arrived of a download that stops after its head.
    private func reportInterrupted() {
        if let interrupted = observer.interrupted, let received = validator.received { interrupted(received) }
    }

    private func finish(_ result: Result<Outcome, ImagePipeline.Error>) {
        guard let completion else { return }
        self.completion = nil
        let timer = control.withLock { control -> Scheduled<Void>? in
            control.isFinished = true
            defer { control.timer = nil }
            return control.timer
        }
        timer?.cancel()
        completion(result)
    }

    /// AsyncHTTPClient's and NIO's errors as the pipeline's.
    private func translated(_ error: any Error) -> ImagePipeline.Error {
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return .cancelled(url)
            case .connectTimeout: return .timedOut(url, .connect, after: watchdog.connectTimeout)
            case .deadlineExceeded: return .timedOut(url, .download, after: watchdog.downloadTimeout)
            case .remoteConnectionClosed: return validator.interrupted(reason: "the server closed the connection")
            default: return validator.interrupted(reason: error.description)
            }
        }
        if let error = error as? NIOConnectionError {
            let attempts = error.connectionErrors.map { Self.reason(for: $0.error) }
            let lookup = error.dnsAError.map { "the host name could not be resolved (\(Self.reason(for: $0)))" }
            return .connectionFailed(url, reason: attempts.first ?? lookup ?? "\(error)")
        }
        return validator.interrupted(reason: Self.reason(for: error))
    }

    /// A short, readable account of a transport error: the system's words for an errno.
    private static func reason(for error: any Error) -> String {
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode))
        }
        return String(describing: error)
    }
}
#endif
