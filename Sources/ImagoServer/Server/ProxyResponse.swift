#if os(Linux)
import Foundation

/// What the proxy answers, independent of the HTTP server that sends it.
public struct ProxyResponse: Sendable {
    public var status: Int
    /// Header fields in order (names as sent).
    public var headers: [(String, String)]
    public var body: Data

    public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (any case).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// `{"error": {"code": …, "message": …}}` with `status`; with `detail` too when
    /// `includingDetail` (``ImageProxyConfiguration/sendsErrorDetails``) and the error has one.
    static func error(_ error: ProxyError, includingDetail: Bool = false) -> ProxyResponse {
        let detail = includingDetail ? error.detail.map { ",\"detail\":\(JSONText.quoted($0))" } ?? "" : ""
        let body = "{\"error\":{\"code\":\(JSONText.quoted(error.code)),\"message\":\(JSONText.quoted(error.message))\(detail)}}"
        var headers = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]
        if let retryAfter = error.retryAfterSeconds { headers.append(("Retry-After", "\(retryAfter)")) }
        return ProxyResponse(status: error.status, headers: headers, body: Data(body.utf8))
    }
}
#endif
