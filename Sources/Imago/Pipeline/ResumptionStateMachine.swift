import Foundation

/// The decisions of resuming one download attempt, as a value: the `Range` and `If-Range` to send
/// for the bytes kept from an earlier attempt, what the answer means (`206` continuing them, `200`
/// starting over, or an inconsistent answer whose bytes cannot be joined), how far the download
/// has come counted from the resumed byte, and what to keep when the attempt stops early.
///
/// Bytes are joined only under a strong validator (RFC 9110 §13.1.5, §8.8): a strong `ETag`, or a
/// `Last-Modified` at least a second older than the response's `Date`; a `206` must carry that
/// same validator and exactly the range asked for. A `206` that cannot continue the kept bytes
/// drops them and the download starts again from zero with no `Range` (see ``ResponseAction``);
/// a `206` to a request that asked for no range at all is an error.
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
        /// The answer cannot be joined to the kept bytes (no validator or another one, another
        /// range or total, a coded body): they are dropped, and the download starts again from
        /// zero. Restarting, not failing: nothing was spliced, the server may well serve the whole
        /// file, and the next request carries no `Range`, so it cannot end here again.
        case restart(reason: String)
        /// A `206 Partial Content` to a request that asked for no range: a part of something, never
        /// to be taken for the whole body (nor retried: the same server would send it again).
        case fail(ImagePipeline.Error)
    }

    let url: URL
    /// The bytes kept from an earlier attempt, when this attempt resumes them.
    private(set) var partial: ResumableData?
    /// Whether partial downloads may be kept and resumed at all: not when the request sets its own
    /// `Range` or `If-Range`, or is conditional (a revalidation's `304` has no body to join).
    let isResumable: Bool
    /// Whether the caller's own headers ask for a range: a `206` is then theirs to read as it is.
    let callerAsksForRange: Bool

    /// The machine for one attempt with `requestHeaders` (before ``headers(adding:)``), resuming
    /// `partial` when there is one and the request allows it.
    init(url: URL, requestHeaders: [String: String], partial: ResumableData?) {
        self.url = url
        let names = Set(requestHeaders.keys.map { $0.lowercased() })
        isResumable = names.isDisjoint(with: ["range", "if-range", "if-none-match", "if-modified-since", "if-match"])
        callerAsksForRange = names.contains("range")
        // Kept bytes with no validator to send as If-Range are not resumed (nor sent a Range).
        self.partial = isResumable && partial?.ifRange != nil ? partial : nil
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
        guard statusCode == 206 else { return .whole }  // 200: If-Range failed or Range ignored; the body is whole
        guard let partial else {
            // Nobody asked for a part: taking it for the whole would store and decode a fragment.
            return callerAsksForRange ? .whole : .fail(.httpStatus(url, statusCode: 206))
        }
        if let reason = inconsistency(of: headers, with: partial) { return .restart(reason: reason) }
        guard let range = HTTPHeaderParser.ContentRange(headers["content-range"] ?? ""), body.count == range.length else {
            return .restart(reason: "the 206's body is not as long as its Content-Range says")
        }
        var joined = partial.data
        joined.append(body)
        return .resumed(joined)
    }

    /// The reason a `206` head cannot continue `partial`, or `nil` when it can: its range must start
    /// at the first missing byte and run to the end of the same total, it must carry the validator
    /// sent as `If-Range` (a `206` without it proves nothing about which version its bytes come
    /// from), and its body must not be coded.
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
        if let etag = partial.etag {
            // Character for character: the kept tag is strong, so equal tags are strong too.
            guard let sent = HTTPHeaderParser.validator(headers["etag"]) else { return "the 206 carries no ETag" }
            guard sent == etag else { return "the 206 carries another ETag" }
        } else if let lastModified = partial.lastModified {
            guard let sent = HTTPHeaderParser.validator(headers["last-modified"]) else { return "the 206 carries no Last-Modified" }
            guard sent == lastModified else { return "the 206 carries another Last-Modified" }
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
        guard let lastModified, Self.isStrong(lastModified: lastModified, date: headers["date"]) else { return nil }
        return ResumableData(data: received.data, totalLength: total, etag: nil, lastModified: lastModified)
    }

    /// Whether a `Last-Modified` date is a strong validator, fit for `If-Range` (RFC 9110 §8.8.2.2,
    /// §13.1.5): only when the response's `Date` is at least one second later. A file changed
    /// twice within the second it was served would otherwise keep its date, and be spliced.
    static func isStrong(lastModified: String, date: String?) -> Bool {
        guard let date, let modified = HTTPDate(lastModified), let served = HTTPDate(date) else { return false }
        return served.secondsSince1970 - modified.secondsSince1970 >= 1
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
