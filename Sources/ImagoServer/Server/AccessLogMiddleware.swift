#if os(Linux)
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
        do {
            let response = try await next(request, context)
            record(request, status: Int(response.status.code), bytes: response.headers[.contentLength] ?? "-", since: start)
            return response
        } catch let error as any HTTPResponseError {
            // The router's own answers (404 for a path no route serves) are requests too.
            record(request, status: Int(error.status.code), bytes: "-", since: start)
            throw error
        }
    }

    private func record(_ request: Request, status: Int, bytes: String, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        metrics.recordRequest(status: status, duration: elapsed)
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        logger.info("\(request.method) \(Self.logged(path: request.uri.path)) \(status) \(bytes) \(milliseconds) ms")
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
