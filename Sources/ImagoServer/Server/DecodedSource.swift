import Foundation
import Imago

/// A source decoded for the proxy, at full resolution or reduced on load, with what it was made
/// from: kept in ``DecodedSourceStore`` so that later sizes of the source need no decode.
struct DecodedSource: Sendable {
    /// The first frame, EXIF orientation applied; its colour profile when it was kept.
    var container: ImageContainer
    /// The pixels (the container's bitmap).
    var bitmap: Bitmap
    /// The source's full size, after its EXIF orientation.
    var size: PixelSize
    /// When the source stops being fresh; `nil`: no expiry known.
    var expiresAt: Date?
    /// `false` when the source said `no-store`.
    var isStorable: Bool
    /// The source bytes' fingerprint (``ImagePipeline/OriginalData/fingerprint``).
    var fingerprint: String
    /// The source's encoded size in bytes.
    var byteCount: Int

    /// The pixels' share of the source's resolution, across and down (1: full size).
    var scale: (x: Double, y: Double) {
        (Double(bitmap.width) / Double(max(1, size.width)), Double(bitmap.height) / Double(max(1, size.height)))
    }

    /// Whether these pixels give every output pixel of a request needing `requiredScale` a source
    /// pixel (the geometry's ``ProxyGeometry/requiredScale``).
    func covers(_ requiredScale: Double) -> Bool {
        let (x, y) = scale
        return min(x, y) >= requiredScale * (1 - 1e-9) || (bitmap.width >= size.width && bitmap.height >= size.height)
    }
}
