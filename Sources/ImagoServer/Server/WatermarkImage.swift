#if os(Linux)
import Foundation
import Imago

/// The image the `watermark` option lays over results (imgproxy's `IMGPROXY_WATERMARK_DATA`,
/// `_PATH` or `_URL`); a path's `watermark_url` (`wmu`) names one for that request instead.
public enum WatermarkImage: Sendable, Hashable {
    /// Decoded pixels, and a name for them in cache keys (equal names, equal pixels).
    case bitmap(Bitmap, identifier: String)
    /// A URL fetched through the proxy's pipeline when first needed (then from its caches), under
    /// the source policy like any source.
    case url(URL)

    /// `data` decoded now (its first frame, converted to sRGB), as imgproxy loads `_DATA` and
    /// `_PATH` at start-up.
    /// - Throws: what decoding throws: bytes no decoder reads, a limit exceeded.
    public static func decoding(_ data: Data) throws(ImagePipeline.Error) -> WatermarkImage {
        let bitmap = try ImageDecoderRegistry().decode(data, decodesAllFrames: false).bitmap()
        return .bitmap(bitmap, identifier: ImageProcessors.Watermark(image: bitmap).imageIdentifier)
    }

    /// The name of the watermark in cache keys.
    var identifier: String {
        switch self {
        case .bitmap(_, let identifier): identifier
        case .url(let url): "url:\(url.absoluteString.utf8.count):\(url.absoluteString)"
        }
    }
}
#endif
