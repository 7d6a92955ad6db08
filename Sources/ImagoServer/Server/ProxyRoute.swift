#if os(Linux)
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The router's catch-all route: hands the request's path (its query and the server's path
/// prefix left off) to the ``ImageProxy`` and turns the proxy's answer into a Hummingbird response.
///
/// A body larger than ``chunkSize`` is never copied whole: it goes out in pieces of that size,
/// each copied from the answer's bytes only when the connection has room for it, so a slow
/// reader holds a few pieces and one write buffer (64 KiB), whatever the body's size. The
/// writer waits while the channel is over its write-buffer high-water mark, but it learns so on
/// the connection's event loop, while a route runs on another thread: left alone it yields
/// pieces far faster than the loop writes them (5–13 MiB queued per slow reader of a 42 MiB
/// body). So after each piece it waits for one turn of the connection's event loop, by which
/// time the piece is in the channel and the writer knows whether it may go on.
///
/// Such a body also needs a lease from ``ResponseBytesInFlight``, which bounds the bodies held
/// for readers at once (503 `overloaded` beyond it); a body the response cache shares among
/// readers counts once.
enum ProxyRoute {
    /// Bodies up to this size go out as one buffer; larger ones in pieces of this size.
    static let chunkSize = 64 * 1024

    /// Answers `request`, whose path starts with the configuration's
    /// ``ImagoServer/Configuration/pathPrefix`` (left off before the proxy sees the path, as
    /// imgproxy signs what follows it); a request without the configured
    /// ``ImagoServer/Configuration/secret`` is refused before the proxy sees it, and every answer
    /// carries the CORS headers when ``ImagoServer/Configuration/allowOrigin`` is set.
    static func respond(
        to request: Request, context: ProxyRequestContext, with proxy: ImageProxy, configuration: ImagoServer.Configuration,
        inFlight: ResponseBytesInFlight
    ) async -> Response {
        let prefix = configuration.pathPrefix
        let target = request.uri.string
        var path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
        if !prefix.isEmpty, path.hasPrefix(prefix) {
            path = String(path.dropFirst(prefix.count))
            if path.isEmpty { path = "/" }
        }
        let answer: ProxyResponse
        if let secret = configuration.secret, !Self.carries(secret, authorization: request.headers[.authorization]) {
            answer = .error(
                ProxyError(
                    status: 403, code: "invalid_secret",
                    message: "Forbidden: the request lacks this server's Authorization: Bearer secret"))
        } else {
            // The connection's departure (set by GuardedHTTP1Channel): a request that waits for a
            // slot leaves the queue when its client goes.
            answer = await proxy.respond(
                path: path, accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch],
                ifModifiedSince: request.headers[.ifModifiedSince],
                clientHint: { name in HTTPField.Name(name).flatMap { request.headers[$0] } }, departure: ClientDeparture.current)
        }
        var result = response(
            answer, sendsBody: request.method != .head, inFlight: inFlight,
            pacedBy: configuration.pacesLargeBodies ? context.eventLoop : nil, retryAfter: proxy.configuration.retryAfterSeconds)
        addCORSHeaders(to: &result.headers, configuration: configuration)
        if configuration.logsMemoryStatistics { MemoryStatistics.log(to: proxy.configuration.logger, proxy: proxy, inFlight: inFlight) }
        return result
    }

    /// imgproxy's CORS headers, when the configuration has an allowed origin.
    static func addCORSHeaders(to fields: inout HTTPFields, configuration: ImagoServer.Configuration) {
        guard let origin = configuration.allowOrigin, let name = HTTPField.Name("Access-Control-Allow-Origin"),
            let methods = HTTPField.Name("Access-Control-Allow-Methods")
        else { return }
        fields[name] = origin
        fields[methods] = "GET, OPTIONS"
    }

    /// Whether `authorization` is exactly `Bearer {secret}`, compared in time that does not depend
    /// on where the two first differ (``HMACSHA256/isEqual(_:_:)``, as signatures are).
    static func carries(_ secret: String, authorization: String?) -> Bool {
        HMACSHA256.isEqual(Array("Bearer \(secret)".utf8), Array((authorization ?? "").utf8))
    }

    /// The response for `answer`; `sendsBody` is `false` for HEAD, whose body is never written
    /// (its headers still describe it). A large body is written in pieces paced by `eventLoop`
    /// (the connection's; `nil` writes them back to back).
    static func response(
        _ answer: ProxyResponse, sendsBody: Bool, inFlight: ResponseBytesInFlight, pacedBy eventLoop: (any EventLoop)?,
        retryAfter: Int
    ) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let status = HTTPResponse.Status(code: answer.status)
        if answer.status == 304 { return Response(status: status, headers: fields, body: ResponseBody()) }
        let count = answer.body.count
        fields[.contentLength] = "\(count)"
        guard sendsBody else { return Response(status: status, headers: fields, body: ResponseBody()) }
        guard count > chunkSize else {
            return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
        guard let lease = inFlight.lease(answer.body) else {
            let refusal = ProxyError(
                status: 503, code: "overloaded",
                message: "the server is at its limit of response bytes on their way to clients; retry after \(retryAfter) s",
                retryAfterSeconds: retryAfter)
            return response(.error(refusal), sendsBody: true, inFlight: inFlight, pacedBy: nil, retryAfter: retryAfter)
        }
        return Response(
            status: status, headers: fields,
            body: ResponseBody(contentLength: count) { writer in
                try await write(lease.body, to: &writer, pacedBy: eventLoop)
                try await writer.finish(nil)
            })
    }

    /// Writes `body` in pieces of ``chunkSize``, each after the one before has reached the
    /// channel (a turn of `eventLoop`) and while the channel has room.
    static func write(_ body: Data, to writer: inout any ResponseBodyWriter, pacedBy eventLoop: (any EventLoop)?) async throws {
        var start = body.startIndex
        while start < body.endIndex {
            let end = body.index(start, offsetBy: min(chunkSize, body.endIndex - start))
            try await writer.write(ByteBuffer(bytes: body[start..<end]))
            if let eventLoop { try await eventLoop.submit {}.get() }
            start = end
        }
    }
}
#endif
