#if os(Linux) || os(macOS)  // the loopback server: where test suites run (see Package.swift)
import Foundation

extension TestServer {
    /// How the server answers requests for one path. Paths without a behavior are served
    /// ``normal``; set one with ``TestServer/setBehavior(_:_:)``.
    public enum Behavior: Sendable, Hashable {
        /// Serves the registered resource (404 when there is none) with a `Content-Length` and a
        /// `Date`, and answers 304 to `If-None-Match` / `If-Modified-Since` that match its `ETag` /
        /// `Last-Modified`, with the headers RFC 9110 §15.4.5 asks of a 304 (those of them a 200
        /// would carry: `Cache-Control`, `Content-Location`, `Date`, `ETag`, `Expires`, `Vary`).
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
        /// Declares the full `Content-Length` and sends the body in parts ending at each of
        /// `boundaries` (byte offsets into the body sent), then the rest; before each part after
        /// the first it waits for ``TestServer/sendNextSlice(_:)`` (or shutdown): for tests that
        /// must see what a client does with each part, however slowly the machine runs.
        case slices(boundaries: [Int])
        /// Advertises `Accept-Ranges: bytes` but answers every request with `200` and the whole
        /// body, as servers that do not implement ranges do.
        case ignoresRange
        /// Answers a `Range` request with `206`, the bytes it asked for, and `contentRange` as
        /// `Content-Range` instead of the true one.
        case wrongContentRange(String)
        /// Answers a `Range` request with `206` and the bytes it asked for even when its `If-Range`
        /// does not match (the resource changed): a server that ignores `If-Range`.
        case ignoresIfRange
        /// As ``ignoresIfRange``, and its `206` carries neither `ETag` nor `Last-Modified`: a part
        /// that does not say which version of the file it comes from.
        case ignoresIfRangeWithoutValidators
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

    /// A body registered with ``TestServer/set(_:data:contentType:headers:etag:lastModified:acceptsRanges:)``.
    struct Resource: Sendable {
        var data: Data
        var contentType: String
        var headers: [String: String]
        var etag: String?
        var lastModified: String?
        /// Whether `Accept-Ranges: bytes` is sent and `Range` (with `If-Range`) honoured.
        var acceptsRanges = false

        /// The bytes a `Range` header asks for (`bytes=first-` or `bytes=first-last`, one range),
        /// clamped to the body; `nil` for no range or one that cannot be served, `.unsatisfiable`
        /// when it starts past the end.
        func requestedRange(_ request: RecordedRequest) -> RangeAnswer? {
            guard acceptsRanges, let field = request.header("range") else { return nil }
            let spec = field.trimmingCharacters(in: .whitespaces)
            guard spec.lowercased().hasPrefix("bytes="), !spec.contains(",") else { return nil }
            let bounds = spec.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Int(bounds[0]) else { return nil }
            let last = bounds[1].isEmpty ? data.count - 1 : min(Int(bounds[1]) ?? data.count - 1, data.count - 1)
            guard first < data.count else { return .unsatisfiable }
            guard first <= last else { return nil }
            return .bytes(first...last)
        }

        /// Whether `request`'s `If-Range` (if any) names this resource's current validator.
        func ifRangeMatches(_ request: RecordedRequest) -> Bool {
            guard let condition = request.header("if-range")?.trimmingCharacters(in: .whitespaces) else { return true }
            if condition.hasPrefix("\"") || condition.hasPrefix("W/") {
                return etag == condition && !condition.hasPrefix("W/")
            }
            return lastModified == condition
        }

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

    /// What a `Range` request can be given.
    enum RangeAnswer: Sendable, Hashable {
        case bytes(ClosedRange<Int>)
        case unsatisfiable
    }
}
#endif
