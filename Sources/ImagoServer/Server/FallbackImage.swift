#if os(Linux)
import Foundation

/// The image answered, processed with the request's options, when a source cannot be fetched or
/// decoded (imgproxy's `IMGPROXY_FALLBACK_IMAGE_DATA`, `_PATH` or `_URL`, with
/// `IMGPROXY_FALLBACK_IMAGE_HTTP_CODE` and `IMGPROXY_FALLBACK_IMAGE_TTL`). A path's
/// `fallback_image_url` (`fiu`) names one for that request instead, with the same status and TTL.
public struct FallbackImage: Sendable, Hashable {
    /// Where the fallback's bytes come from.
    public enum Source: Sendable, Hashable {
        /// Bytes held in memory (`_DATA`, or `_PATH` read at start-up, as imgproxy reads them).
        case data(Data)
        /// A URL fetched like any source, under the source policy (`_URL`).
        case url(URL)
    }

    /// The image, or `nil` when only paths' `fiu` name one. Default: `nil`.
    public var source: Source?
    /// The status of a fallback answer; 0 answers the status the failure would have had.
    /// Default: 200, imgproxy's.
    public var statusCode: Int = 200
    /// `max-age` of a fallback answer, in seconds, when shorter than the proxy's own; 0 keeps
    /// the proxy's. Default: 0.
    public var ttl: Int = 0

    public init(source: Source? = nil, statusCode: Int = 200, ttl: Int = 0) {
        self.source = source
        self.statusCode = statusCode
        self.ttl = ttl
    }

    /// The scheme the proxy's pipeline reads a ``Source/data(_:)`` fallback under.
    static let scheme = "imago-fallback"
    /// The URL the proxy's pipeline reads a ``Source/data(_:)`` fallback from.
    static let dataURL = URL(string: "imago-fallback:///image")
}
#endif
