#if os(Linux)
import Foundation

/// One encoded response body with its content type and strong ETag, and how long it may be kept:
/// no longer than the source it was made from.
struct EncodedImage: Sendable {
    var data: Data
    var contentType: String
    var etag: String
    var width: Int
    var height: Int
    /// The source's size (imgproxy's `X-Origin-Width` and `-Height` debug headers); 0: unknown.
    var sourceWidth = 0
    var sourceHeight = 0
    /// When the source stops being fresh; `nil`: no expiry known.
    var expiresAt: Date? = nil
    /// `false` when the source said `no-store`: the response tier does not keep it.
    var isStorable = true
    /// The `Content-Disposition` value (imgproxy's `filename`, `return_attachment`); `nil`: none.
    var contentDisposition: String? = nil
    /// The status of a fallback image's answer (``FallbackImage/statusCode``); `nil`: not one.
    var fallbackStatus: Int? = nil
    /// A fallback image's `max-age` (``FallbackImage/ttl``), when it has one.
    var fallbackTTL: Int? = nil
    /// The source's `Last-Modified` (``ImageResponse/lastModified``), sent on when the proxy
    /// uses it (``ImageProxyConfiguration/usesLastModified``).
    var lastModified: Date? = nil
}
#endif
