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

    /// `{"error": {"code": …, "message": …}}` with `status`.
    static func error(_ error: ProxyError) -> ProxyResponse {
        let body = "{\"error\":{\"code\":\(json(error.code)),\"message\":\(json(error.message))}}"
        var headers = [("Content-Type", "application/json"), ("Cache-Control", "no-store")]
        if let retryAfter = error.retryAfterSeconds { headers.append(("Retry-After", "\(retryAfter)")) }
        return ProxyResponse(status: error.status, headers: headers, body: Data(body.utf8))
    }

    private static func json(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            default:
                if scalar.value < 0x20 {
                    result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
#endif
