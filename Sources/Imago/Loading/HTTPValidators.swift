/// What an HTTP response says about caching its body: validators to revalidate it with, and how
/// long it stays fresh. Stored with a disk entry as metadata.
struct HTTPValidators: Sendable, Hashable {
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

    /// Reads the validators from response headers (names in lower case).
    init(responseHeaders headers: [String: String]) {
        etag = headers["etag"]
        lastModified = headers["last-modified"]
        let directives = (headers["cache-control"] ?? "").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for directive in directives {
            if directive == "no-store" {
                noStore = true
            } else if directive == "no-cache" {
                noCache = true
            } else if directive.hasPrefix("max-age=") || directive.hasPrefix("s-maxage="),
                let seconds = Int(directive.split(separator: "=")[1].trimmingCharacters(in: .init(charactersIn: "\""))),
                seconds >= 0
            {
                maxAge = .seconds(seconds)
            }
        }
    }

    /// Reads the validators kept in a disk entry's metadata.
    init(metadata: [String: String]) {
        etag = metadata[Self.etagKey]
        lastModified = metadata[Self.lastModifiedKey]
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

import Foundation
