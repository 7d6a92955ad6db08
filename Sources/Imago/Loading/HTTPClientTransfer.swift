#if os(Linux)
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// One download over AsyncHTTPClient, from the first request to the checked body: redirect hops
/// under ``RedirectPolicy``, the status, headers and body through ``DownloadValidator``, progress,
/// and the ``DownloadWatchdog``'s stall and download limits, each hop an ``HTTPClientExchange``.
///
/// ``HTTPClientDataLoader`` and the image proxy's guarded loader both download this way; they
/// differ only in how each hop connects (the proxy resolves and checks every host first), which
/// the `connect` step passed to ``run(_:configuration:progress:connect:)`` decides.
package enum HTTPClientTransfer {
    /// How one hop is sent.
    package struct Hop {
        /// The client that sends it.
        package var client: HTTPClient
        /// What it requests: the hop's URL, or an address literal when the connect step pinned one.
        package var url: String
        /// The request headers.
        package var headers: HTTPHeaders
        /// A client made for this download alone, shut down when the download ends.
        package var isOwned: Bool

        /// A GET of `url` with `headers`, sent by `client`.
        package init(client: HTTPClient, url: String, headers: [String: String], isOwned: Bool = false) {
            self.client = client
            self.url = url
            self.headers = HTTPHeaders(headers.map { ($0.key, $0.value) })
            self.isOwned = isOwned
        }
    }

    /// Downloads `request`: `connect` turns each hop's URL and headers (the request's, minus
    /// credentials on a hop to another origin) into what to send; redirects are followed here.
    package static func run(
        _ request: DataRequest, configuration: DataLoaderConfiguration,
        progress: @escaping @Sendable (DownloadProgress) -> Void,
        connect: @escaping @Sendable (_ url: URL, _ headers: [String: String]) async throws(ImagePipeline.Error) -> Hop
    ) async throws(ImagePipeline.Error) -> DataResponse {
        try await run(request, configuration: configuration, observer: DownloadObserver(progress: progress), connect: connect)
    }

    /// ``run(_:configuration:progress:connect:)`` that also shows `observer` the body as it
    /// arrives and what arrived of a body that stops early.
    ///
    /// Each hop is one ``HTTPClientExchange``; the calling task waits for each in turn, and its
    /// cancellation cancels the one under way.
    package static func run(
        _ request: DataRequest, configuration: DataLoaderConfiguration, observer: DownloadObserver,
        connect: @escaping @Sendable (_ url: URL, _ headers: [String: String]) async throws(ImagePipeline.Error) -> Hop
    ) async throws(ImagePipeline.Error) -> DataResponse {
        guard !Task.isCancelled else { throw .cancelled(request.url) }
        let watchdog = DownloadWatchdog(url: request.url, configuration: configuration)
        let deadline = NIODeadline.now() + TimeAmount(configuration.downloadTimeout)
        let headers = DownloadValidator.headers(for: request, configuration: configuration)
        let validator = DownloadValidator(request: request, configuration: configuration)
        var redirects = RedirectPolicy(request: request, headers: headers)
        var url = request.url
        var ownedClients: [HTTPClient] = []
        defer { for client in ownedClients { client.shutdown { _ in } } }
        while true {
            let hop = try await connect(url, redirects.headers)
            if hop.isOwned { ownedClients.append(hop.client) }
            let sent: HTTPClient.Request
            do {
                sent = try HTTPClient.Request(url: hop.url, method: .GET, headers: hop.headers)
            } catch {
                throw .connectionFailed(request.url, reason: "cannot request \(hop.url): \(error)")
            }
            let outcome = try await exchange(
                sent, client: hop.client, deadline: deadline, url: request.url, validator: validator, observer: observer,
                watchdog: watchdog)
            switch outcome {
            case .response(let response):
                return response
            case .redirect(let status, let location):
                switch redirects.decide(status: status, location: location) {
                case .follow(let next, _):
                    url = next
                case .deliver:
                    // Not reached: an exchange ends at its head only for a redirect the policy follows.
                    throw .httpStatus(request.url, statusCode: status)
                case .fail(let error):
                    throw error
                }
            }
        }
    }

    /// Where the waiting task's cancellation finds the exchange: one that comes before the
    /// exchange has started is left here for the start to act on.
    private enum ExchangeState: Sendable {
        case waiting
        case started(HTTPClientExchange)
        case cancelled
    }

    /// Sends one hop and waits for how it ends; cancelling the calling task cancels it.
    private static func exchange(
        _ request: HTTPClient.Request, client: HTTPClient, deadline: NIODeadline, url: URL,
        validator: DownloadValidator, observer: DownloadObserver, watchdog: DownloadWatchdog
    ) async throws(ImagePipeline.Error) -> HTTPClientExchange.Outcome {
        let state = Mutex(ExchangeState.waiting)
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<HTTPClientExchange.Outcome, ImagePipeline.Error>, Never>) in
                let exchange = HTTPClientExchange.start(
                    request, client: client, deadline: deadline, url: url, validator: validator, observer: observer,
                    watchdog: watchdog
                ) { result in continuation.resume(returning: result) }
                let cancelledFirst = state.withLock { state -> Bool in
                    if case .cancelled = state { return true }
                    state = .started(exchange)
                    return false
                }
                if cancelledFirst { exchange.cancel() }
            }
        } onCancel: {
            let exchange = state.withLock { state -> HTTPClientExchange? in
                if case .started(let exchange) = state { return exchange }
                state = .cancelled
                return nil
            }
            exchange?.cancel()
        }
        return try result.get()
    }
}
#endif
