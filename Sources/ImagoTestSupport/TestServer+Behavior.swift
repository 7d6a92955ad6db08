#if os(Linux) || os(macOS)  // the loopback server: where test suites run (see Package.swift)
import Foundation

extension TestServer {
    /// How the server answers requests for one path. Paths without a behavior are served
    /// ``normal``; set one with ``TestServer/setBehavior(_:_:)``.
    public enum Behavior: Sendable, Hashable {
        /// Serves the registered resource (404 when there is none) with a `Content-Length`, and
        /// answers 304 to `If-None-Match` / `If-Modified-Since` that match its `ETag` /
        /// `Last-Modified`.
        case normal
        /// Answers `status` with `body` and extra `headers` (say `Location` or `Retry-After`).
        case status(Int, body: Data = Data(), headers: [String: String] = [:])
        /// Waits `delay` before answering normally (for download timeouts and concurrency peaks).
        case delay(Duration)
        /// Declares the full `Content-Length`, sends the first `sendBytes` bytes, then closes the
        /// connection.
        case truncated(sendBytes: Int)
        /// Declares `declared` as `Content-Length`, sends the whole resource, then closes the
        /// connection (so a shorter declaration cannot leak bytes into the next response).
        case wrongContentLength(declared: Int)
        /// Serves the resource with chunked transfer encoding and no `Content-Length`, so clients
        /// cannot know the total in advance.
        case chunked(chunkSize: Int = 16 * 1024)
        /// Serves the resource chunked, sends the first `sendBytes` bytes, then closes the
        /// connection without the terminating chunk: a chunked body cut off in transit.
        case truncatedChunked(sendBytes: Int, chunkSize: Int = 16 * 1024)
        /// Sends a chunked body that never ends, until the client closes the connection or the
        /// server shuts down.
        case endless(chunkSize: Int = 16 * 1024)
        /// Declares the full `Content-Length` and sends `bytesPerInterval` bytes, then waits
        /// `interval`, and so on (for stall timeouts).
        case trickle(bytesPerInterval: Int, interval: Duration)
        /// Leaves the request unanswered until ``TestServer/release(_:)`` is called for its path
        /// (or the server shuts down), then serves it normally: for tests that must act while a
        /// download is certainly under way, however slowly the machine runs.
        case held
        /// Closes the connection without answering.
        case dropConnection
        /// Answers 200 with an HTML error page typed `text/html`, as captive portals and
        /// misconfigured CDNs do in place of an image.
        case html
        /// Serves the resource normally with these extra headers.
        case headers([String: String])
        /// Writes `bytes` exactly as given, bypassing the HTTP encoder, then closes the connection:
        /// for responses no well-behaved server sends (duplicated, empty or contradictory headers,
        /// a bad status line, garbage). ``TestServer/rawResponse(status:fields:body:)`` builds one.
        case raw(Data)
        /// One behavior per successive request to the path, then ``normal`` for the rest (for
        /// retries). A nested `sequence` is served as ``normal``.
        case sequence([Behavior])
    }

    /// A hand-made HTTP/1.1 response for ``Behavior/raw(_:)``: the status line, each field in
    /// order (repeats kept, nothing added or checked), `Connection: close`, then `body`.
    public static func rawResponse(status: Int = 200, fields: [(String, String)], body: Data = Data()) -> Data {
        var head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Data(head.utf8) + body
    }

    /// A request as the server received it, for tests that check what a client sent.
    public struct RecordedRequest: Sendable, Hashable {
        /// `GET`, `HEAD`…
        public var method: String
        /// The path, without the query string.
        public var path: String
        /// The request target as sent, query string included.
        public var target: String
        /// Header values by lower-cased name; repeated headers are joined with ", ".
        public var headers: [String: String]

        /// The value of header `name` (any case), if it was sent.
        public func header(_ name: String) -> String? {
            headers[name.lowercased()]
        }
    }

    /// A body registered with ``TestServer/set(_:data:contentType:headers:etag:lastModified:)``.
    struct Resource: Sendable {
        var data: Data
        var contentType: String
        var headers: [String: String]
        var etag: String?
        var lastModified: String?

        /// Whether `request` is conditional and its validators match this resource, so the
        /// answer is 304.
        func isNotModified(for request: RecordedRequest) -> Bool {
            if let condition = request.header("if-none-match") {
                guard let etag else { return false }
                let weakless = { (tag: Substring) in tag.trimmingCharacters(in: .whitespaces).replacing("W/", with: "") }
                let candidates = condition.split(separator: ",").map(weakless)
                return candidates.contains("*") || candidates.contains(weakless(Substring(etag)))
            }
            if let condition = request.header("if-modified-since"), let lastModified {
                return condition == lastModified
            }
            return false
        }
    }
}
#endif
