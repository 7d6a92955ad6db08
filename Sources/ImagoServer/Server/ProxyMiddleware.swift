#if os(Linux) || os(macOS)
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Hands every GET that is not one of the server's own routes to the ``ImageProxy``, and writes
/// one access-log line per request (method, path, status, bytes, milliseconds).
struct ProxyMiddleware<Context: RequestContext>: RouterMiddleware {
    let proxy: ImageProxy
    /// Paths the router answers itself.
    let ownPaths: Set<String>
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let target = request.uri.string
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
        let response: Response
        let bytes: Int
        if ownPaths.contains(path) || request.method != .get && request.method != .head {
            response = try await next(request, context)
            bytes = -1
        } else {
            let answer = await proxy.respond(
                path: path, accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch])
            response = Self.response(answer, head: request.method == .head)
            bytes = answer.body.count
        }
        let elapsed = ContinuousClock.now - start
        proxy.metrics.recordRequest(status: Int(response.status.code), duration: elapsed)
        logger.info(
            "\(request.method) \(path) \(response.status.code) \(bytes >= 0 ? "\(bytes)" : "-") \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000) ms")
        return response
    }

    static func response(_ answer: ProxyResponse, head: Bool) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        if answer.status != 304 { fields[.contentLength] = "\(answer.body.count)" }
        let body = head || answer.status == 304 ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        return Response(status: HTTPResponse.Status(code: answer.status), headers: fields, body: body)
    }
}
#endif
