#if os(Linux)
import CImagoCodecs
#endif
import Foundation

/// Encodes still AVIF (AV1 in HEIF), keeping transparency: libavif with whichever AV1 encoder it
/// was built with (aom, rav1e or SVT-AV1) on Linux, ImageIO on Apple platforms that write AVIF.
///
/// AVIF is what browsers take that is smallest for photographs: about half a JPEG of the same
/// look, and smaller than WebP, at the cost of a slower encode (``speed``).
package struct AVIFEncoder: ImageEncoding {
    /// 0 (smallest) to 1 (best), as for every quality in Imago; 1 uses lossless quantizers
    /// (the colour still goes through 4:2:0 YUV). Default: ``ImageContainer/defaultEncodingQuality``.
    public var quality: Double

    /// libavif's speed, 0 (slowest, smallest) to 10 (fastest); Linux only. Default: 9, a still
    /// thumbnail in tens of milliseconds (`imago serve` uses imgproxy's 8, `IMGPROXY_AVIF_SPEED`).
    public var speed: Int

    /// The colour profile written into the file (`colr` box), for pixels that kept their source's
    /// profile (``ImageContainer/pixelColorProfile``); `nil`: sRGB. Default: `nil`.
    public var colorProfile: ColorProfile?

    /// An encoder at `quality` (clamped to 0...1; not a number: the default) and `speed`
    /// (clamped to 0...10), writing `colorProfile` when there is one.
    public init(quality: Double = ImageContainer.defaultEncodingQuality, speed: Int = 9, colorProfile: ColorProfile? = nil) {
        self.quality = quality.isNaN ? ImageContainer.defaultEncodingQuality : min(max(quality, 0), 1)
        self.speed = min(max(speed, 0), 10)
        self.colorProfile = colorProfile
    }

    /// Always ``ImageFormat/avif``.
    public var format: ImageFormat { .avif }

    /// Whether this platform's AVIF encoder is there: on Linux, a libavif built with an AV1
    /// encoder (Debian's `libavif15` depends on three); on Apple platforms, an ImageIO that lists
    /// AVIF among the types it writes.
    public static var isAvailable: Bool {
        #if os(Linux)
        imago_avif_can_encode() == 1
        #elseif canImport(ImageIO)
        ImageIOEncoder.canWrite("public.avif")
        #else
        false
        #endif
    }

    /// Encodes `image`.
    ///
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for an empty bitmap, one larger
    ///   than 65,535 pixels a side, a libavif without an AV1 encoder, or an Apple system whose
    ///   ImageIO cannot write AVIF.
    public func encode(_ image: Bitmap) throws(ImagePipeline.Error) -> Data {
        try checkNotEmpty(image)
        guard image.width <= 65_535, image.height <= 65_535 else {
            throw failure("a \(image.width)x\(image.height) bitmap is too large for AVIF (65,535 pixels a side)")
        }
        #if os(Linux)
        let pixels = image.straightAlphaPixels
        let hasAlpha: Int32 = image.alphaMode == .opaque ? 0 : 1
        let quality = Int32((quality * 100).rounded())
        let speed = Int32(speed)
        let icc = [UInt8](colorProfile?.data ?? Data())
        // Both sides fit in 16 bits (checked above), so the C int conversions cannot truncate.
        return try encodeWithShim(library: "libavif") { output, size, message in
            icc.withUnsafeBufferPointer { icc in
                imago_avif_encode(
                    pixels, Int32(image.width), Int32(image.height), image.bytesPerRow, hasAlpha, quality, speed, icc.baseAddress,
                    icc.count, &output, &size, message)
            }
        }
        #elseif canImport(ImageIO)
        return try ImageIOEncoder.encode(
            Bitmap(width: image.width, height: image.height, alphaMode: .straight, pixels: image.straightAlphaPixels),
            as: self, quality: quality)
        #else
        throw failure("no AVIF encoder on this platform")
        #endif
    }
}
