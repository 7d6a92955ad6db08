import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionDataLoader {
    /// One task's download: validates what the delegate hands it and resumes the waiting caller
    /// once, with the response or the first error.
    final class Transfer: Sendable {
        private struct State {
            var validator: DownloadValidator
            var redirects: RedirectPolicy
            var continuation: CheckedContinuation<DataLoader.Response, any Error>?
            /// Whether the caller has cancelled (before or after the task started).
            var isCancelled = false
            /// Why the transfer cancelled its task, reported instead of the cancellation.
            private(set) var failure: ImagePipeline.Error?

            init(validator: DownloadValidator, redirects: RedirectPolicy) {
                self.validator = validator
                self.redirects = redirects
            }

            /// Records why the task must stop; the first reason is the one reported.
            mutating func fail(_ error: ImagePipeline.Error) {
                if failure == nil { failure = error }
            }
        }

        private let state: Locked<State>
        private let watchdog: DownloadWatchdog
        private let observer: DownloadObserver

        init(validator: DownloadValidator, redirects: RedirectPolicy, watchdog: DownloadWatchdog, observer: DownloadObserver) {
            self.state = Locked(State(validator: validator, redirects: redirects))
            self.watchdog = watchdog
            self.observer = observer
        }

        /// Whether the transfer has recorded a reason to stop.
        var hasFailed: Bool { state.withLock { $0.failure != nil } }

        /// Whether the caller has cancelled; see ``cancel()``.
        var isCancelled: Bool { state.withLock { $0.isCancelled } }

        /// Takes the caller's continuation; false (and the continuation resumed with
        /// `CancellationError`) when the caller has already cancelled, so the task must not start.
        func start(_ continuation: CheckedContinuation<DataLoader.Response, any Error>) -> Bool {
            let started = state.withLock { state in
                guard !state.isCancelled else { return false }
                state.continuation = continuation
                return true
            }
            if !started { continuation.resume(throwing: CancellationError()) }
            return started
        }

        /// The caller cancelled: resumes it at once with `CancellationError`, without waiting for
        /// the session to report the task's end (which a task cancelled as it starts may never
        /// do promptly). Later events are ignored.
        func cancel() {
            let (continuation, received) = state.withLock { state in
                state.isCancelled = true
                defer { state.continuation = nil }
                return (state.continuation, state.validator.received)
            }
            guard let continuation else { return }
            if let interrupted = observer.interrupted, let received { interrupted(received) }
            continuation.resume(throwing: CancellationError())
        }

        /// Takes the response head; false when the download must stop.
        func receive(_ response: URLResponse) -> Bool {
            watchdog.noteActivity()
            return state.withLock { state in
                guard state.failure == nil else { return false }
                guard let response = response as? HTTPURLResponse else {
                    state.fail(.unsupportedScheme(state.validator.url))
                    return false
                }
                let headers = response.allHeaderFields.compactMap { name, value in
                    (name as? String).map { ($0, "\(value)") }
                }
                do throws(ImagePipeline.Error) {
                    try state.validator.receive(statusCode: response.statusCode, headers: headers)
                    return true
                } catch {
                    state.fail(error)
                    return false
                }
            }
        }

        /// Takes a piece of the body; false when the download must stop.
        func receive(_ data: Data) -> Bool {
            watchdog.noteActivity()
            let wantsBody = observer.receivedBody != nil
            let update: (ImageTask.Progress, DataLoader.Response?)? = state.withLock { state in
                guard state.failure == nil else { return nil }
                do throws(ImagePipeline.Error) {
                    try state.validator.receive(data)
                    return (state.validator.progress, wantsBody ? state.validator.received : nil)
                } catch {
                    state.fail(error)
                    return nil
                }
            }
            guard let (progress, received) = update else { return false }
            if let received { observer.receivedBody?(received) }
            observer.progress(progress)
            return true
        }

        /// The request to send for a redirect the session proposes, under ``RedirectPolicy``; nil
        /// (and a failure, unless the response is simply delivered) when it is refused.
        func redirect(_ response: HTTPURLResponse, proposed: URLRequest) -> URLRequest? {
            watchdog.noteActivity()
            return state.withLock { state in
                guard state.failure == nil else { return nil }
                let location = response.value(forHTTPHeaderField: "Location") ?? proposed.url?.absoluteString
                switch state.redirects.decide(status: response.statusCode, location: location) {
                case .deliver:
                    // The session saw a redirect the policy does not (an empty `Location`): report
                    // the status, as HTTPClientDataLoader does.
                    state.fail(.httpStatus(state.validator.url, statusCode: response.statusCode))
                    return nil
                case .follow(let url, let headers):
                    var next = URLRequest(
                        url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: proposed.timeoutInterval)
                    next.httpMethod = "GET"
                    for (name, value) in headers { next.setValue(value, forHTTPHeaderField: name) }
                    return next
                case .fail(let error):
                    state.fail(error)
                    return nil
                }
            }
        }

        /// Resumes the caller with the outcome of the task.
        func complete(_ error: (any Error)?) {
            let (continuation, result, received) = state.withLock { state in
                defer { state.continuation = nil }
                return (state.continuation, outcome(of: error, state: state), state.validator.received)
            }
            guard let continuation else { return }
            if case .failure = result, let interrupted = observer.interrupted, let received { interrupted(received) }
            continuation.resume(with: result)
        }

        private func outcome(of error: (any Error)?, state: State) -> Result<DataLoader.Response, any Error> {
            if let failure = state.failure { return .failure(failure) }
            guard let error else {
                return Result { () throws(ImagePipeline.Error) in try state.validator.finish() }.mapError { $0 }
            }
            let url = state.validator.url
            switch (error as? URLError)?.code {
            case .cancelled?:
                return .failure(CancellationError())
            case .timedOut?:
                return .failure(watchdog.transportTimedOut())
            case .httpTooManyRedirects?:
                return .failure(ImagePipeline.Error.connectionFailed(
                    url, reason: "more than \(RedirectPolicy.maximumHops) redirects, the most one download follows"))
            case let code?:
                return .failure(state.validator.interrupted(reason: Self.reason(for: code)))
            case nil:
                return .failure(state.validator.interrupted(reason: String(describing: error)))
            }
        }

        /// Plain words for the URL errors a download meets (Linux's own descriptions are just codes).
        private static func reason(for code: URLError.Code) -> String {
            switch code {
            case .cannotConnectToHost: "could not connect to the server"
            case .cannotFindHost, .dnsLookupFailed: "the host name could not be resolved"
            case .networkConnectionLost: "the connection was lost"
            case .notConnectedToInternet: "not connected to the internet"
            case .secureConnectionFailed: "the TLS handshake failed"
            case .badServerResponse: "the server sent a malformed response"
            default: "URL error \(code.rawValue)"
            }
        }
    }
}
