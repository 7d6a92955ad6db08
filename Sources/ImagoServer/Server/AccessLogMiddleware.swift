#if os(Linux) || os(macOS)
import Foundation
import Hummingbird
import Logging

/// One access-log line per request (method, path without its query, status, bytes, milliseconds)
/// and the request's status and duration in ``ServerMetrics``, for every route.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        metrics.recordRequest(status: Int(response.status.code), duration: elapsed)
        let bytes = response.headers[.contentLength] ?? "-"
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        logger.info("\(request.method) \(request.uri.path) \(response.status.code) \(bytes) \(milliseconds) ms")
        return response
    }
}
#endif
