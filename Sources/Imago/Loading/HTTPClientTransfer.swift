#if os(Linux)
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// One download over AsyncHTTPClient, from the first request to the checked body: redirect hops
/// under ``RedirectPolicy``, the status, headers and body through ``DownloadValidator``, progress,
/// and the ``DownloadWatchdog``'s stall and download limits.
///
/// ``HTTPClientDataLoader`` and the image proxy's guarded loader both download this way; they
/// differ only in how each hop connects (the proxy resolves and checks every host first), which
/// the `connect` step passed to ``run(_:configuration:progress:connect:)`` decides.
package enum HTTPClientTransfer {
    /// How one hop is sent.
    package struct Hop {
        /// The client that sends it.
        package var client: HTTPClient
        /// The request: its URL (an address literal, when the connect step pinned one) and headers.
        package var request: HTTPClientRequest
        /// A client made for this download alone, shut down when the download ends.
        package var isOwned: Bool

        package init(client: HTTPClient, request: HTTPClientRequest, isOwned: Bool = false) {
            self.client = client
            self.request = request
            self.isOwned = isOwned
        }
    }

    /// A GET of `url` with `headers`, as most connect steps build it.
    package static func getRequest(_ url: String, headers: [String: String]) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        for (name, value) in headers {
            request.headers.add(name: name, value: value)
        }
        return request
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
    package static func run(
        _ request: DataRequest, configuration: DataLoaderConfiguration, observer: DownloadObserver,
        connect: @escaping @Sendable (_ url: URL, _ headers: [String: String]) async throws(ImagePipeline.Error) -> Hop
    ) async throws(ImagePipeline.Error) -> DataResponse {
        let watchdog = DownloadWatchdog(url: request.url, configuration: configuration)
        let deadline = NIODeadline.now() + TimeAmount(configuration.downloadTimeout)
        let headers = DownloadValidator.headers(for: request, configuration: configuration)
        return try await watchdog.run {
            var validator = DownloadValidator(request: request, configuration: configuration)
            var redirects = RedirectPolicy(request: request, headers: headers)
            var url = request.url
            var response: HTTPClientResponse
            var ownedClients: [HTTPClient] = []
            defer { for client in ownedClients { client.shutdown { _ in } } }
            hops: while true {
                let hop = try await connect(url, redirects.headers)
                if hop.isOwned { ownedClients.append(hop.client) }
                do {
                    response = try await hop.client.execute(hop.request, deadline: deadline)
                } catch {
                    throw Self.error(for: error, url: request.url, configuration: configuration, validator: validator)
                }
                watchdog.noteActivity()
                switch redirects.decide(status: Int(response.status.code), location: response.headers.first(name: "location")) {
                case .deliver:
                    break hops
                case .follow(let next, _):
                    url = next  // dropping the redirect's response cancels its body
                case .fail(let error):
                    throw error
                }
            }
            try validator.receive(statusCode: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) })
            do {
                for try await chunk in response.body {
                    watchdog.noteActivity()
                    try validator.receive(chunk.readableBytesView)
                    if let receivedBody = observer.receivedBody, let received = validator.received { receivedBody(received) }
                    observer.progress(validator.progress)
                }
                // The body ends early, without an error, when the task is cancelled.
                try Task.checkCancellation()
            } catch {
                if let interrupted = observer.interrupted, let received = validator.received { interrupted(received) }
                if let error = error as? ImagePipeline.Error { throw error }
                throw Self.error(for: error, url: request.url, configuration: configuration, validator: validator)
            }
            return try validator.finish()
        }
    }

    /// Translates AsyncHTTPClient's and NIO's errors into the pipeline's.
    private static func error(
        for error: any Error, url: URL, configuration: DataLoaderConfiguration, validator: DownloadValidator
    ) -> any Error {
        if error is CancellationError { return error }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return CancellationError()
            case .connectTimeout: return ImagePipeline.Error.timedOut(url, .connect, after: configuration.connectTimeout)
            case .deadlineExceeded:
                return ImagePipeline.Error.timedOut(url, .download, after: configuration.downloadTimeout)
            case .remoteConnectionClosed:
                return validator.interrupted(reason: "the server closed the connection")
            default:
                return validator.interrupted(reason: error.description)
            }
        }
        if let error = error as? NIOConnectionError {
            let attempts = error.connectionErrors.map { reason(for: $0.error) }
            let lookup = error.dnsAError.map { "the host name could not be resolved (\(reason(for: $0)))" }
            return ImagePipeline.Error.connectionFailed(url, reason: attempts.first ?? lookup ?? "\(error)")
        }
        return validator.interrupted(reason: reason(for: error))
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
