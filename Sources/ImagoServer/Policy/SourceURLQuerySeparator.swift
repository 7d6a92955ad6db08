#if os(Linux)
import Foundation

/// Where a `local://` or `s3://` source's path (or object key) ends and its query begins:
/// imgproxy's `IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`. `?` (the default) is the URL's own query;
/// another separator cuts the decoded path and query at its first occurrence; an empty one
/// keeps the whole text, `?` and all, as the path. An `s3://` query is the object's version; a
/// `local://` one is ignored.
package struct SourceURLQuerySeparator: Sendable, Hashable {
    /// The separator; empty: none.
    package var text: String

    /// `?`, imgproxy's default.
    package static let standard = SourceURLQuerySeparator("?")

    package init(_ text: String) {
        self.text = text
    }

    /// The percent-encoded text `components`' path is read from: the URL's path, and, unless the
    /// separator is `?` (the URL's query is then the query), a `?` and the URL's query.
    package func encodedText(of components: URLComponents) -> String {
        let path = components.percentEncodedPath
        guard text != "?", let query = components.percentEncodedQuery else { return path }
        return path + "?" + query
    }

    /// `decoded` (``encodedText(of:)`` decoded) cut into the path and the query: at the first
    /// separator (the query `nil` when there is none); for `?`, `decoded` is the path and the
    /// query is `components`' own, decoded.
    package func split(_ decoded: String, components: URLComponents) -> (path: String, query: String?) {
        if text == "?" { return (decoded, components.percentEncodedQuery.flatMap { $0.removingPercentEncoding }) }
        guard !text.isEmpty, let range = decoded.range(of: text) else { return (decoded, nil) }
        return (String(decoded[..<range.lowerBound]), String(decoded[range.upperBound...]))
    }
}
#endif
