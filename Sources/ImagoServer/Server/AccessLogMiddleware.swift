#if os(Linux) || os(macOS)
import Foundation
import Hummingbird
import Logging

/// One access-log line per request (method, what was asked, status, bytes, milliseconds) and the
/// request's status and duration in ``ServerMetrics``, for every route.
///
/// What was asked is written without secrets, as the pipeline's own logs write URLs: a processing
/// path as its options and its source's `URL/redactedDescription` (no user, password, query or
/// fragment: sources are often signed or carry API keys); any other path without its query, cut
/// at ``maximumLoggedPathLength`` characters.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics
    let logger: Logger

    /// The longest path logged as it is; a 9 KB path from a client must not make a 9 KB log line.
    static var maximumLoggedPathLength: Int { 200 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        metrics.recordRequest(status: Int(response.status.code), duration: elapsed)
        let bytes = response.headers[.contentLength] ?? "-"
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        logger.info("\(request.method) \(Self.logged(path: request.uri.path)) \(response.status.code) \(bytes) \(milliseconds) ms")
        return response
    }

    /// `path` as the access log writes it.
    static func logged(path: String) -> String {
        if let parsed = try? ProcessingPath.parse(path) {
            return "/\(parsed.options.canonical) \(parsed.source.redactedDescription)"
        }
        guard path.count > maximumLoggedPathLength else { return path }
        return String(path.prefix(maximumLoggedPathLength)) + "…(\(path.utf8.count) bytes)"
    }
}
#endif
