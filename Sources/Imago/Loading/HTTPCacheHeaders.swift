import Foundation

/// What an HTTP response says about caching its body: validators to revalidate it with, and how
/// long it stays fresh. Stored with a disk entry as metadata.
struct HTTPCacheHeaders: Sendable, Hashable {
    /// The `ETag` header, sent back as `If-None-Match`.
    var etag: String?
    /// The `Last-Modified` header, sent back as `If-Modified-Since`.
    var lastModified: String?
    /// `Cache-Control: max-age` (or `s-maxage`), when given.
    var maxAge: Duration?
    /// `Cache-Control: no-store`: the body must not be written to disk.
    var noStore = false
    /// `Cache-Control: no-cache`: the body may be stored but must be revalidated before each use.
    var noCache = false

    /// Reads the validators from response headers (names in lower case, repeated fields joined
    /// with ", "). Nothing a server sends makes this trap: unreadable values are ignored, and an
    /// unreadable or contradictory `max-age` makes the body stale at once (RFC 9111 §4.2.1).
    /// `Age` is subtracted from `max-age`; `Expires` is not read.
    init(responseHeaders headers: [String: String]) {
        etag = HTTPHeaderParser.validator(headers["etag"])
        lastModified = HTTPHeaderParser.validator(headers["last-modified"])
        let cacheControl = HTTPHeaderParser.CacheControl(headers["cache-control"] ?? "")
        noStore = cacheControl.noStore
        noCache = cacheControl.noCache
        if let maxAge = cacheControl.maxAge {
            let age = headers["age"].flatMap { HTTPHeaderParser.deltaSeconds($0) } ?? 0
            self.maxAge = .seconds(max(0, maxAge - age))
        }
    }

    /// Reads the validators kept in a disk entry's metadata.
    init(metadata: [String: String]) {
        etag = HTTPHeaderParser.validator(metadata[Self.etagKey])
        lastModified = HTTPHeaderParser.validator(metadata[Self.lastModifiedKey])
    }

    /// The disk entry metadata that keeps the validators.
    var metadata: [String: String] {
        var metadata: [String: String] = [:]
        metadata[Self.etagKey] = etag
        metadata[Self.lastModifiedKey] = lastModified
        return metadata
    }

    /// How long a stored body stays fresh: `no-cache` means at once stale, `max-age` its value,
    /// otherwise `nil` (the disk cache's default lifetime).
    var lifetime: Duration? { noCache ? .zero : maxAge }

    /// ``lastModified`` read as a date (our own bounded ``HTTPDate`` parser), or `nil`.
    var lastModifiedDate: Date? { lastModified.flatMap { HTTPDate($0)?.date } }

    /// Whether a stale copy can be revalidated instead of downloaded again.
    var canRevalidate: Bool { etag != nil || lastModified != nil }

    /// Conditional request headers for revalidating a copy with these validators.
    var conditionalRequestHeaders: [String: String] {
        var headers: [String: String] = [:]
        headers["If-None-Match"] = etag
        headers["If-Modified-Since"] = lastModified
        return headers
    }

    private static let etagKey = "http.etag"
    private static let lastModifiedKey = "http.last-modified"
}
