#if os(Linux)
import CImagoCodecs
#endif
import Foundation

/// Encodes JPEG at a given quality: libjpeg-turbo on Linux, ImageIO on Apple platforms.
///
/// JPEG has no alpha channel, so a bitmap with transparency is composited onto white first (a
/// transparent logo stays readable instead of turning black).
public struct JPEGEncoder: ImageEncoding {
    /// 1 (smallest) to 100 (best); 85 by default, where artefacts are hard to see.
    public var quality: Int

    public init(quality: Int = 85) {
        self.quality = min(max(quality, 1), 100)
    }

    public var format: ImageFormat { .jpeg }

    public func encode(_ image: Bitmap) throws(ImagePipeline.Error) -> Data {
        try checkNotEmpty(image)
        let pixels = image.opaqueOnWhitePixels
        #if os(Linux)
        return try encodeWithShim(library: "libjpeg") { output, size, message in
            imago_jpeg_encode(
                pixels, Int32(image.width), Int32(image.height), image.bytesPerRow, Int32(quality), &output, &size,
                message)
        }
        #elseif canImport(ImageIO)
        return try ImageIOEncoder.encode(
            Bitmap(width: image.width, height: image.height, alphaMode: .opaque, pixels: pixels), as: self,
            quality: Double(quality) / 100)
        #else
        throw failure("no JPEG encoder on this platform")
        #endif
    }
}
