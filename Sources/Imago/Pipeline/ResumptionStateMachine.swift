import Foundation

/// The decisions of resuming one download attempt, as a value: the `Range` and `If-Range` to send
/// for the bytes kept from an earlier attempt, what the answer means (`206` continuing them, `200`
/// starting over, or an inconsistent answer whose bytes cannot be joined), how far the download
/// has come counted from the resumed byte, and what to keep when the attempt stops early.
///
/// The pipeline performs what it returns (sending, joining, storing); the rules live here so that
/// they are tested without a server or a clock (`ResumptionStateMachineTests`).
struct ResumptionStateMachine {
    /// What a successful response means.
    enum ResponseAction: Equatable {
        /// The body is the whole image, as it came (a `200`, or no resumption was asked for).
        case whole
        /// A `206` that continues the kept bytes: `data` is the whole image, kept bytes first.
        case resumed(Data)
        /// The answer cannot be joined to the kept bytes (another validator, another range or
        /// total, a coded body): they are dropped, and the download starts again from zero.
        case restart(reason: String)
    }

    let url: URL
    /// The bytes kept from an earlier attempt, when this attempt resumes them.
    private(set) var partial: ResumableData?
    /// Whether partial downloads may be kept and resumed at all: not when the request sets its own
    /// `Range` or `If-Range`, or is conditional (a revalidation's `304` has no body to join).
    let isResumable: Bool

    /// The machine for one attempt with `requestHeaders` (before ``headers(adding:)``), resuming
    /// `partial` when there is one and the request allows it.
    init(url: URL, requestHeaders: [String: String], partial: ResumableData?) {
        self.url = url
        let names = Set(requestHeaders.keys.map { $0.lowercased() })
        isResumable = names.isDisjoint(with: ["range", "if-range", "if-none-match", "if-modified-since", "if-match"])
        self.partial = isResumable ? partial : nil
    }

    /// The request's headers with `Range` and `If-Range` added when this attempt resumes.
    func headers(adding requestHeaders: [String: String]) -> [String: String] {
        guard let partial, let ifRange = partial.ifRange else { return requestHeaders }
        var headers = requestHeaders
        headers["Range"] = partial.range
        headers["If-Range"] = ifRange
        return headers
    }

    /// What a successful (2xx) response with `statusCode`, `headers` (lower-cased names) and `body` means.
    func response(statusCode: Int, headers: [String: String], body: Data) -> ResponseAction {
        guard let partial else { return .whole }
        guard statusCode == 206 else { return .whole }  // 200: If-Range failed or Range ignored; the body is whole
        if let reason = inconsistency(of: headers, with: partial) { return .restart(reason: reason) }
        guard let range = HTTPHeaderParser.ContentRange(headers["content-range"] ?? ""), body.count == range.length else {
            return .restart(reason: "the 206's body is not as long as its Content-Range says")
        }
        var joined = partial.data
        joined.append(body)
        return .resumed(joined)
    }

    /// The reason a `206` head cannot continue `partial`, or `nil` when it can: its range must start
    /// at the first missing byte and run to the end of the same total, its validator must be the
    /// one sent as `If-Range`, and its body must not be coded.
    private func inconsistency(of headers: [String: String], with partial: ResumableData) -> String? {
        guard let field = headers["content-range"], let range = HTTPHeaderParser.ContentRange(field) else {
            return "the 206 has no readable Content-Range"
        }
        guard range.first == partial.data.count else {
            return "the 206 starts at byte \(range.first), not at \(partial.data.count)"
        }
        guard range.total == partial.totalLength, range.last == partial.totalLength - 1 else {
            return "the 206's range \(range.first)-\(range.last)/\(range.total.map(String.init) ?? "*") does not end the "
                + "\(partial.totalLength) bytes first announced"
        }
        if let etag = partial.etag, let sent = HTTPHeaderParser.validator(headers["etag"]), sent != etag {
            return "the 206 carries another ETag"
        }
        if partial.etag == nil, let lastModified = partial.lastModified,
            let sent = HTTPHeaderParser.validator(headers["last-modified"]), sent != lastModified
        {
            return "the 206 carries another Last-Modified"
        }
        if let coding = headers["content-encoding"], coding.lowercased() != "identity" {
            return "the 206's body is coded (\(coding))"
        }
        return nil
    }

    /// How far the attempt has come after `received`, counted from the first byte of the image:
    /// a `206` continuing the kept bytes counts them as done.
    func progress(of received: DataLoader.Response) -> ImageTask.Progress {
        let expected = Self.declaredLength(received.headers)
        if let partial, received.statusCode == 206, inconsistency(of: received.headers, with: partial) == nil {
            return ImageTask.Progress(
                completed: Int64(partial.data.count) + Int64(received.data.count), total: Int64(partial.totalLength))
        }
        return ImageTask.Progress(completed: Int64(received.data.count), total: expected.map(Int64.init))
    }

    /// The kept bytes that come before `received`'s body: all of them for a `206` that continues
    /// them, none otherwise (a `200` is whole by itself).
    func keptData(for received: DataLoader.Response) -> Data {
        guard let partial, received.statusCode == 206, inconsistency(of: received.headers, with: partial) == nil else {
            return Data()
        }
        return partial.data
    }

    /// What to keep of an attempt that stopped early after `received` arrived, for the next one to
    /// resume: `nil` when the response cannot be resumed or holds nothing worth keeping.
    func resumableData(from received: DataLoader.Response) -> ResumableData? {
        guard isResumable, !received.data.isEmpty else { return nil }
        let headers = received.headers
        if received.statusCode == 206 {
            // A resumed attempt cut again: the kept bytes and the new ones, under the first validator.
            guard let partial, inconsistency(of: headers, with: partial) == nil else { return nil }
            var joined = partial.data
            joined.append(received.data)
            guard joined.count < partial.totalLength else { return nil }
            return ResumableData(data: joined, totalLength: partial.totalLength, etag: partial.etag, lastModified: partial.lastModified)
        }
        guard received.statusCode == 200, HTTPHeaderParser.acceptsByteRanges(headers["accept-ranges"]),
            let total = Self.declaredLength(headers), received.data.count < total,
            !HTTPHeaderParser.CacheControl(headers["cache-control"] ?? "").noStore
        else { return nil }
        let lastModified = HTTPHeaderParser.validator(headers["last-modified"])
        if let etag = HTTPHeaderParser.validator(headers["etag"]) {
            // A weak tag cannot go in If-Range, and with a tag a date may not either.
            guard !etag.hasPrefix("W/") else { return nil }
            return ResumableData(data: received.data, totalLength: total, etag: etag, lastModified: lastModified)
        }
        guard let lastModified else { return nil }
        return ResumableData(data: received.data, totalLength: total, etag: nil, lastModified: lastModified)
    }

    /// The `Content-Length` of an uncoded body, as ``DownloadValidator`` counts it.
    static func declaredLength(_ headers: [String: String]) -> Int? {
        if let coding = headers["content-encoding"], coding.lowercased() != "identity" { return nil }
        guard let field = headers["content-length"], case .length(let length) = HTTPHeaderParser.ContentLength(field) else {
            return nil
        }
        return length
    }
}
