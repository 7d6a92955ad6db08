#if os(Linux)
import AsyncHTTPClient
import Foundation
import NIOHTTP1

/// How ``HTTPClientDataLoader`` and the image proxy's guarded loader download: one
/// ``HTTPClientDownload`` (redirect hops under ``RedirectPolicy``, each an ``HTTPClientExchange``:
/// the status, headers and body through ``DownloadValidator``, progress, and the
/// ``DownloadWatchdog``'s stall and download limits), waited for by the calling task.
///
/// The two loaders differ only in how each hop connects (the proxy resolves and checks every host
/// first), which the `connect` step decides.
package enum HTTPClientTransfer {
    /// Turns a hop's URL and headers (the request's, minus credentials on a hop to another
    /// origin) into what to send.
    package typealias Connect = @Sendable (_ url: URL, _ headers: [String: String]) async throws(ImagePipeline.Error) -> Hop

    /// How one hop is sent.
    package struct Hop {
        /// The client that sends it.
        package var client: HTTPClient
        /// What it requests: the hop's URL, or an address literal when the connect step pinned one.
        package var url: String
        /// The request headers.
        package var headers: HTTPHeaders

        /// A GET of `url` with `headers`, sent by `client`.
        package init(client: HTTPClient, url: String, headers: [String: String]) {
            self.client = client
            self.url = url
            self.headers = HTTPHeaders(headers.map { ($0.key, $0.value) })
        }
    }

    /// Downloads `request`, calling `progress` as the body arrives; cancelling the calling task
    /// cancels the download.
    package static func run(
        _ request: DataLoader.Request, configuration: DataLoader.Configuration,
        progress: @escaping @Sendable (ImageTask.Progress) -> Void, connect: @escaping Connect
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        try await run(request, configuration: configuration, observer: DownloadObserver(progress: progress), connect: connect)
    }

    /// ``run(_:configuration:progress:connect:)`` that also shows `observer` the body as it
    /// arrives and what arrived of a body that stops early.
    package static func run(
        _ request: DataLoader.Request, configuration: DataLoader.Configuration, observer: DownloadObserver,
        connect: @escaping Connect
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        let download = try await HTTPClientDownload.start(
            request, configuration: configuration, observer: observer, connect: connect)
        return try await download.response(cancelling: true)
    }
}
#endif
