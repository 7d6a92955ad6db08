#if os(Linux) || os(macOS)
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The router's catch-all route: hands the request's path (its query left off) to the
/// ``ImageProxy`` and turns the proxy's answer into a Hummingbird response.
enum ProxyRoute {
    static func respond(to request: Request, with proxy: ImageProxy) async -> Response {
        let target = request.uri.string
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
        let answer = await proxy.respond(path: path, accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch])
        return response(answer)
    }

    static func response(_ answer: ProxyResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        if answer.status != 304 { fields[.contentLength] = "\(answer.body.count)" }
        let body = answer.status == 304 ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        return Response(status: HTTPResponse.Status(code: answer.status), headers: fields, body: body)
    }
}
#endif
