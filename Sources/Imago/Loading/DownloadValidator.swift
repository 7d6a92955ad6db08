import Foundation

/// Checks one download against ``DataLoader/Configuration`` as it arrives and collects its body,
/// so that every loader refuses the same things with the same ``ImagePipeline/Error``: the
/// scheme, the status, a declared or streamed body over the limit, a body shorter or longer than
/// declared, an empty body.
///
/// Transports feed it the response head, then each chunk, then ask for the result; it holds no
/// locks and does no I/O.
package struct DownloadValidator: Sendable {
    /// Sent as `Accept` unless the request sets one: image formats first, anything else last.
    package static let accept = "image/webp,image/png,image/jpeg,image/gif,*/*;q=0.5"
    /// The reason given for a request made after the loader was shut down.
    package static let shutDownReason = "the data loader has been shut down"

    let url: URL
    let maximumBodySize: Int
    /// Whether ``maximumBodySize`` is the request's own limit (``DataLoader/Request/maximumBodySize``),
    /// which is refused with ``ImagePipeline/Error/sourceTooLarge(_:_:)`` rather than `bodyTooLarge`.
    let limitIsRequests: Bool
    /// Whether the request carried `If-None-Match` or `If-Modified-Since`, so a 304 is an answer.
    let isConditional: Bool

    private(set) var statusCode: Int?
    private(set) var headers: [String: String] = [:]
    /// The declared `Content-Length`, unless a `Content-Encoding` makes it describe other bytes.
    private(set) var expectedLength: Int?
    private(set) var body = Data()

    package init(request: DataLoader.Request, configuration: DataLoader.Configuration) {
        self.url = request.url
        let requested = request.maximumBodySize.map { max(0, $0) } ?? Int.max
        self.maximumBodySize = min(configuration.maximumBodySize, requested)
        self.limitIsRequests = requested < configuration.maximumBodySize
        let names = Set(request.headers.keys.map { $0.lowercased() })
        self.isConditional = names.contains("if-none-match") || names.contains("if-modified-since")
    }

    /// Refuses anything but http and https before any network work happens.
    static func checkScheme(of url: URL) throws(ImagePipeline.Error) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw .unsupportedScheme(url)
        }
    }

    /// The request's headers plus `User-Agent` and `Accept`, unless it sets them itself.
    package static func headers(for request: DataLoader.Request, configuration: DataLoader.Configuration) -> [String: String] {
        var headers = request.headers
        let names = Set(headers.keys.map { $0.lowercased() })
        if !names.contains("user-agent") { headers["User-Agent"] = configuration.userAgent }
        if !names.contains("accept") { headers["Accept"] = accept }
        return headers
    }

    /// How far the download has come, for progress callbacks.
    package var progress: ImageTask.Progress {
        ImageTask.Progress(completed: Int64(body.count), total: expectedLength.map(Int64.init))
    }

    /// The response head and the body so far, once the head has arrived: what a
    /// ``DownloadObserver`` is shown.
    package var received: DataLoader.Response? {
        statusCode.map { DataLoader.Response(data: body, statusCode: $0, headers: headers) }
    }

    /// Takes the response head: refuses a status outside 2xx (304 only answers a conditional
    /// request) and a declared length over the limit.
    package mutating func receive(statusCode: Int, headers fields: some Sequence<(String, String)>) throws(ImagePipeline.Error) {
        var headers: [String: String] = [:]
        for (name, value) in fields {
            let name = name.lowercased()
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        self.statusCode = statusCode
        self.headers = headers
        guard (200...299).contains(statusCode) || (statusCode == 304 && isConditional) else {
            throw .httpStatus(url, statusCode: statusCode, retryAfter: headers["retry-after"].flatMap { Self.retryAfter($0) })
        }
        guard let field = headers["content-length"] else { return }
        let encoding = headers["content-encoding"]?.lowercased() ?? "identity"
        switch HTTPHeaderParser.ContentLength(field) {
        case .length(let declared):
            // With a content coding the length describes other bytes than the ones counted here.
            guard encoding == "identity" else { return }
            expectedLength = declared
            guard declared <= maximumBodySize else { throw tooLarge(declared) }
        case .tooLarge:
            throw tooLarge(nil)
        case .invalid:
            throw .connectionFailed(
                url, reason: "the server sent an invalid Content-Length (\(Self.quoted(field))), so the body's end is unknown")
        }
    }

    /// A `Retry-After` value as a wait: delta-seconds (`120`) or an HTTP date, counted from `now`;
    /// see ``HTTPHeaderParser/retryAfter(_:now:)``.
    static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        HTTPHeaderParser.retryAfter(value, now: now)
    }

    /// A header value for an error message: quoted, at most 40 characters, control characters escaped.
    static func quoted(_ value: String) -> String {
        let shown = value.count > 40 ? value.prefix(40) + "…" : Substring(value)
        let escaped = shown.unicodeScalars.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        return "\"" + escaped.joined() + "\""
    }

    /// The error for a body over ``maximumBodySize`` (`declared` bytes, when known).
    private func tooLarge(_ declared: Int?) -> ImagePipeline.Error {
        limitIsRequests
            ? .sourceTooLarge(url, .bytes(limit: maximumBodySize, actual: declared)) : .bodyTooLarge(url, limit: maximumBodySize)
    }

    /// Takes the next piece of the body, refusing it when the body would pass the limit.
    package mutating func receive(_ chunk: some Collection<UInt8>) throws(ImagePipeline.Error) {
        guard chunk.count <= maximumBodySize - body.count else {
            throw tooLarge(nil)
        }
        body.append(contentsOf: chunk)
    }

    /// The error for a transport failure: once a declared length is known and not reached, the
    /// body is incomplete; otherwise the connection failed for `reason`.
    package func interrupted(reason: String) -> ImagePipeline.Error {
        if statusCode != nil, let expectedLength, body.count != expectedLength {
            return .bodyLengthMismatch(url, expected: expectedLength, received: body.count)
        }
        return .connectionFailed(url, reason: reason)
    }

    /// The response once the body has ended: it must have the declared length and, unless it
    /// answers a revalidation with 304, not be empty.
    package func finish() throws(ImagePipeline.Error) -> DataLoader.Response {
        guard let statusCode else { throw interrupted(reason: "the server sent no response") }
        if statusCode == 304 {
            return DataLoader.Response(data: Data(), statusCode: statusCode, headers: headers)
        }
        if let expectedLength, body.count != expectedLength {
            throw .bodyLengthMismatch(url, expected: expectedLength, received: body.count)
        }
        guard !body.isEmpty else { throw .emptyBody(url) }
        return DataLoader.Response(data: body, statusCode: statusCode, headers: headers)
    }
}
