#if os(Linux)
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Downloads image bytes with AsyncHTTPClient: the default ``DataLoading`` on Linux, where it is
/// several times faster than URLSession.
///
/// The loader owns its `HTTPClient` (on NIO's shared event loop group) and with it a pool of up
/// to ``DataLoaderConfiguration/maximumConnections`` connections per host. It follows up to 10
/// redirects, never from https to http, dropping credential headers on a hop to another origin
/// (see ``DataRequest/credentialHeaderNames``); a refused redirect fails as
/// ``ImagePipeline/Error/connectionFailed(_:reason:)``.
/// A failed connection attempt is reported at once rather than retried, so that the pipeline's
/// own retry policy decides. Call ``shutdown()`` when done; a loader released without it shuts
/// its client down in the background.
public final class HTTPClientDataLoader: DataLoading {
    /// The limits every download is held to.
    public let configuration: DataLoaderConfiguration

    private let client: HTTPClient
    private let isShutDown = Atomic(false)

    /// Creates a loader with its own connection pool, limited by `configuration`.
    public init(configuration: DataLoaderConfiguration = DataLoaderConfiguration()) {
        self.configuration = configuration
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, configuration.maximumConnections)
        pool.retryConnectionEstablishment = false
        let clientConfiguration = HTTPClient.Configuration(
            // Redirects are followed here, hop by hop, under ``RedirectPolicy``.
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(configuration.connectTimeout)),
            connectionPool: pool,
            decompression: .disabled
        )
        self.client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
    }

    deinit {
        // AsyncHTTPClient traps when a client is released while running; its callback-based
        // shutdown keeps the client alive until the pool has closed.
        if !isShutDown.exchange(true, ordering: .relaxed) {
            client.shutdown { _ in }
        }
    }

    /// Cancels the downloads in progress, closes every connection and waits until that is done.
    /// The loader cannot be used afterwards.
    public func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .relaxed) else { return }
        try await client.shutdown()
    }

    /// Downloads `request` with AsyncHTTPClient, within the configured limits and timeouts.
    public func loadData(
        for request: DataRequest, progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws(ImagePipeline.Error) -> DataResponse {
        try DownloadValidator.checkScheme(of: request.url)
        guard !isShutDown.load(ordering: .relaxed) else {
            throw .connectionFailed(request.url, reason: DownloadValidator.shutDownReason)
        }
        let watchdog = DownloadWatchdog(url: request.url, configuration: configuration)
        let deadline = NIODeadline.now() + TimeAmount(configuration.downloadTimeout)
        let headers = DownloadValidator.headers(for: request, configuration: configuration)
        return try await watchdog.run { [client, configuration] in
            var validator = DownloadValidator(request: request, configuration: configuration)
            var redirects = RedirectPolicy(request: request, headers: headers)
            var url = request.url
            var response: HTTPClientResponse
            hops: while true {
                var httpRequest = HTTPClientRequest(url: url.absoluteString)
                httpRequest.method = .GET
                for (name, value) in redirects.headers {
                    httpRequest.headers.add(name: name, value: value)
                }
                do {
                    response = try await client.execute(httpRequest, deadline: deadline)
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
                    progress(validator.progress)
                }
            } catch let error as ImagePipeline.Error {
                throw error
            } catch {
                throw Self.error(for: error, url: request.url, configuration: configuration, validator: validator)
            }
            // The body ends early, without an error, when the task is cancelled.
            try Task.checkCancellation()
            return try validator.finish()
        }
    }

    /// Translates AsyncHTTPClient's and NIO's errors into the pipeline's; `package` so that the
    /// image proxy's guarded loader translates them the same way.
    package static func error(
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
