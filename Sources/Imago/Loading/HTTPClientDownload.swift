#if os(Linux)
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One download over AsyncHTTPClient that runs by itself, bound to no task: each hop is an
/// ``HTTPClientExchange`` and the next one, after a redirect that ``RedirectPolicy`` follows,
/// starts from the event loop; the response waits for whoever asks for it.
///
/// `connect` turns each hop's URL and headers into what to send: ``HTTPClientDataLoader``'s
/// builds a request, the image proxy's first checks the host. The first hop connects in the
/// starting task; a redirect's, rare, in a task of its own.
package final class HTTPClientDownload: StartedDownload {
    package typealias Connect = HTTPClientTransfer.Connect

    private struct State {
        var redirects: RedirectPolicy
        /// The hop under way; `nil` before the first and once the download has ended.
        var exchange: HTTPClientExchange?
        var outcome: Result<DataLoader.Response, ImagePipeline.Error>?
        var waiter: UnsafeContinuation<Result<DataLoader.Response, ImagePipeline.Error>, Never>?
        var isCancelled = false
    }

    private let url: URL
    private let observer: DownloadObserver
    private let connect: Connect
    private let validator: DownloadValidator
    private let watchdog: DownloadWatchdog
    private let deadline: NIODeadline
    private let state: Locked<State>

    private init(
        request: DataLoader.Request, configuration: DataLoader.Configuration, observer: DownloadObserver, connect: @escaping Connect
    ) {
        self.url = request.url
        self.observer = observer
        self.connect = connect
        self.validator = DownloadValidator(request: request, configuration: configuration)
        self.watchdog = DownloadWatchdog(url: request.url, configuration: configuration)
        self.deadline = NIODeadline.now() + TimeAmount(configuration.downloadTimeout)
        let headers = DownloadValidator.headers(for: request, configuration: configuration)
        self.state = Locked(State(redirects: RedirectPolicy(request: request, headers: headers)))
    }

    /// Starts downloading `request`: returns once the first hop is sent, or throws why it could
    /// not be (its connect step failed, or the calling task was cancelled first).
    package static func start(
        _ request: DataLoader.Request, configuration: DataLoader.Configuration, observer: DownloadObserver,
        connect: @escaping Connect
    ) async throws(ImagePipeline.Error) -> HTTPClientDownload {
        guard !Task.isCancelled else { throw .cancelled(request.url) }
        let download = HTTPClientDownload(request: request, configuration: configuration, observer: observer, connect: connect)
        let hop = try await connect(request.url, download.state.withLock { $0.redirects.headers })
        download.send(hop)
        return download
    }

    package func response(cancelling: Bool) async throws(ImagePipeline.Error) -> DataLoader.Response {
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<DataLoader.Response, ImagePipeline.Error>, Never>) in
                let now = state.withLock { state -> Result<DataLoader.Response, ImagePipeline.Error>? in
                    if let outcome = state.outcome { return outcome }
                    // Checked under the lock `onCancel` takes: a cancellation is either seen here
                    // or finds the waiter. A cancelling wait stays, to be answered when the
                    // download ends (after its observer has been told what arrived).
                    if !cancelling, Task.isCancelled { return .failure(.cancelled(url)) }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            if cancelling {
                cancel()
            } else {
                state.withLock { state in
                    defer { state.waiter = nil }
                    return state.waiter
                }?.resume(returning: .failure(.cancelled(url)))
            }
        }
        return try outcome.get()
    }

    package func cancel() {
        let exchange = state.withLock { state -> HTTPClientExchange? in
            state.isCancelled = true
            return state.exchange
        }
        exchange?.cancel()
    }

    /// Sends one hop; a cancellation that came before it cancels it at once.
    private func send(_ hop: HTTPClientTransfer.Hop) {
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: hop.url, method: .GET, headers: hop.headers)
        } catch {
            end(.failure(.connectionFailed(self.url, reason: "cannot request \(hop.url): \(error)")))
            return
        }
        let exchange = HTTPClientExchange.start(
            request, client: hop.client, deadline: deadline, url: self.url, validator: validator, observer: observer,
            watchdog: watchdog
        ) { [self] outcome in hopEnded(outcome) }
        let cancelled = state.withLock { state -> Bool in
            if state.outcome == nil { state.exchange = exchange }
            return state.isCancelled
        }
        if cancelled { exchange.cancel() }
    }

    private func hopEnded(_ outcome: Result<HTTPClientExchange.Outcome, ImagePipeline.Error>) {
        switch outcome {
        case .success(.response(let response)):
            end(.success(response))
        case .success(.redirect(let status, let location)):
            switch state.withLock({ $0.redirects.decide(status: status, location: location) }) {
            case .follow(let next, let headers):
                Task { [self, connect] in
                    do throws(ImagePipeline.Error) {
                        send(try await connect(next, headers))
                    } catch {
                        end(.failure(error))
                    }
                }
            case .deliver:
                // Not reached: an exchange ends at its head only for a redirect the policy follows.
                end(.failure(.httpStatus(url, statusCode: status)))
            case .fail(let error):
                end(.failure(error))
            }
        case .failure(let error):
            end(.failure(error))
        }
    }

    private func end(_ outcome: Result<DataLoader.Response, ImagePipeline.Error>) {
        let waiter = state.withLock { state in
            state.outcome = outcome
            state.exchange = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }
}
#endif
