import Foundation

/// The first bytes of a download that stopped early, with what it takes to ask the server for the
/// rest of the same representation: the validator sent back as `If-Range` and the complete length.
struct ResumableData: Sendable, Hashable {
    /// Bytes `0..<data.count` of the representation.
    let data: Data
    /// The complete length the server declared.
    let totalLength: Int
    /// The strong `ETag` the server sent, if any.
    let etag: String?
    /// The `Last-Modified` the server sent, if any (used for `If-Range` only when it was strong:
    /// at least a second older than the response's `Date`).
    let lastModified: String?

    /// What `If-Range` carries: the strong entity tag, or else the date (RFC 9110 §13.1.5 allows a
    /// date only when there is no entity tag and the date is strong).
    var ifRange: String? { etag ?? lastModified }

    /// The `Range` that asks for the rest.
    var range: String { "bytes=\(data.count)-" }
}
