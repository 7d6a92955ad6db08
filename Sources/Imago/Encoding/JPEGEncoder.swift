#if os(Linux)
import CImagoCodecs
#endif
import Foundation

/// Encodes JPEG at a given quality: libjpeg-turbo on Linux, ImageIO on Apple platforms.
///
/// JPEG has no alpha channel, so a bitmap with transparency is composited onto white first (a
/// transparent logo stays readable instead of turning black).
package struct JPEGEncoder: ImageEncoding {
    /// 0 (smallest) to 1 (best), as for every quality in Imago; by default
    /// ``ImageContainer/defaultEncodingQuality``. libjpeg's scale is 1...100: 0 writes as 1.
    public var quality: Double
    /// Whether the JPEG is progressive (a coarse scan first, as image proxies serve). On Linux,
    /// five scans: the DC of every component, the lowest luma frequencies, each chroma component,
    /// the rest of luma; libjpeg's own script adds refinement scans that, on thumbnails, cost
    /// more time than they save bytes. Ignored by ImageIO on Apple platforms. Default: `false`.
    public var progressive: Bool
    /// Whether the JPEG has one (luma) component instead of three: how a single-channel HDR gain
    /// map is stored (`GainMapJPEGWriter`). Baseline whatever ``progressive`` says. Linux only;
    /// ImageIO writes three components. Default: `false`.
    package var isGrayscale = false

    /// An encoder at `quality`, clamped to 0...1 (not a number: the default); `progressive` writes
    /// a progressive JPEG (Linux; ignored where ImageIO encodes).
    public init(quality: Double = ImageContainer.defaultEncodingQuality, progressive: Bool = false) {
        self.quality = quality.isNaN ? ImageContainer.defaultEncodingQuality : min(max(quality, 0), 1)
        self.progressive = progressive
    }

    /// Always ``ImageFormat/jpeg``.
    public var format: ImageFormat { .jpeg }

    /// Encodes `image`, compositing any transparency onto white.
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for an empty bitmap or one larger
    ///   than 65,535 pixels a side.
    public func encode(_ image: Bitmap) throws(ImagePipeline.Error) -> Data {
        #if os(Linux)
        return try encode(image, outputLimit: 0)
        #elseif canImport(ImageIO)
        try checkNotEmpty(image)
        let pixels = image.opaqueOnWhitePixels
        return try ImageIOEncoder.encode(
            Bitmap(width: image.width, height: image.height, alphaMode: .opaque, pixels: pixels), as: self,
            quality: quality)
        #else
        throw failure("no JPEG encoder on this platform")
        #endif
    }

    #if os(Linux)
    /// Encodes with libjpeg-turbo, failing when the output would pass `outputLimit` bytes (0: no
    /// limit). The limit exists for tests: it takes the shim's error path after its output buffer
    /// has grown, with real input.
    func encode(_ image: Bitmap, outputLimit: Int) throws(ImagePipeline.Error) -> Data {
        try checkNotEmpty(image)
        // JPEG stores at most 65,535 pixels a side; libjpeg says so in its own words past that, but
        // the C int parameters must not be handed a truncated value.
        guard let width = Int32(exactly: image.width), let height = Int32(exactly: image.height) else {
            throw failure("a \(image.width)x\(image.height) bitmap is too large for JPEG (65,535 pixels a side)")
        }
        let pixels = image.opaqueOnWhitePixels
        let quality = Int32(max(1, (quality * 100).rounded()))
        if isGrayscale {
            return try encodeWithShim(library: "libjpeg") { output, size, message in
                imago_jpeg_encode_grayscale(pixels, width, height, image.bytesPerRow, quality, &output, &size, message)
            }
        }
        return try encodeWithShim(library: "libjpeg") { output, size, message in
            imago_jpeg_encode_progressive(
                pixels, width, height, image.bytesPerRow, quality, progressive ? 1 : 0,
                max(outputLimit, 0),
                &output, &size, message)
        }
    }
    #endif
}
