#if os(Linux)
import CImagoCodecs
#endif
import Foundation

/// Encodes still JPEG XL, lossy or lossless, keeping transparency: libjxl on Linux (Debian's
/// `libjxl-dev`), ImageIO on Apple platforms whose ImageIO writes JPEG XL.
///
/// Lossy JPEG XL (VarDCT in XYB) is about as small as AVIF for photographs and encodes faster;
/// lossless JPEG XL keeps every pixel and is usually smaller than PNG and lossless WebP. Pixels
/// that are all grey are written with one colour channel, opaque ones without alpha.
package struct JXLEncoder: ImageEncoding {
    /// 0 (smallest) to 1 (best), as for every quality in Imago, mapped to libjxl's Butteraugli
    /// distance as `cjxl -q` maps 0...100 (``distance``); 1 is lossless (modular, every pixel
    /// kept). Default: ``ImageContainer/defaultEncodingQuality``.
    public var quality: Double

    /// libjxl's effort, 1 (fastest) to 9 (slowest, smallest); Linux only. Default: 4, imgproxy's
    /// `IMGPROXY_JXL_EFFORT` default: a thumbnail in milliseconds (libjxl's own default, 7, is
    /// several times slower).
    public var effort: Int

    /// The colour profile written into the file, for pixels that kept their source's profile
    /// (``ImageContainer/pixelColorProfile``); `nil`: sRGB. Default: `nil`.
    public var colorProfile: ColorProfile?

    /// An encoder at `quality` (clamped to 0...1; not a number: the default) and `effort`
    /// (clamped to 1...9), writing `colorProfile` when there is one.
    public init(quality: Double = ImageContainer.defaultEncodingQuality, effort: Int = 4, colorProfile: ColorProfile? = nil) {
        self.quality = quality.isNaN ? ImageContainer.defaultEncodingQuality : min(max(quality, 0), 1)
        self.effort = min(max(effort, 1), 9)
        self.colorProfile = colorProfile
    }

    /// Always ``ImageFormat/jxl``.
    public var format: ImageFormat { .jxl }

    /// Whether ``quality`` asks for every pixel kept.
    var isLossless: Bool { quality >= 1 }

    /// libjxl's Butteraugli distance for ``quality``, as `cjxl -q` (and libjxl 0.9's
    /// `JxlEncoderDistanceFromQuality`) computes it from 0...100: 0 at 100 (lossless), 1 (visually
    /// lossless) at 90, linear down to 30, quadratic below; 25 at 0.
    var distance: Double {
        let q = quality * 100
        if q >= 100 { return 0 }
        if q >= 30 { return 0.1 + (100 - q) * 0.09 }
        return 53.0 / 3000.0 * q * q - 23.0 / 20.0 * q + 25
    }

    /// Whether this platform's JPEG XL encoder is there: always on Linux (libjxl is linked); on
    /// Apple platforms, an ImageIO that lists JPEG XL among the types it writes.
    public static var isAvailable: Bool {
        #if os(Linux)
        true
        #elseif canImport(ImageIO)
        ImageIOEncoder.canWrite("public.jpeg-xl")
        #else
        false
        #endif
    }

    /// Encodes `image`.
    ///
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for an empty bitmap, one libjxl
    ///   refuses (an ICC profile it cannot parse), or an Apple system whose ImageIO cannot write
    ///   JPEG XL (then encode as PNG, JPEG, WebP or AVIF).
    public func encode(_ image: Bitmap) throws(ImagePipeline.Error) -> Data {
        try checkNotEmpty(image)
        #if os(Linux)
        guard let width = UInt32(exactly: image.width), let height = UInt32(exactly: image.height) else {
            throw failure("a \(image.width)x\(image.height) bitmap is too large for JPEG XL")
        }
        let pixels = image.straightAlphaPixels
        let hasAlpha: Int32 = image.alphaMode == .opaque ? 0 : 1
        let icc = [UInt8](colorProfile?.data ?? Data())
        let distance = Float(distance)
        let lossless: Int32 = isLossless ? 1 : 0
        let effort = Int32(effort)
        return try encodeWithShim(library: "libjxl") { output, size, message in
            icc.withUnsafeBufferPointer { icc in
                imago_jxl_encode(
                    pixels, width, height, image.bytesPerRow, hasAlpha, distance, lossless, effort, icc.baseAddress, icc.count,
                    &output, &size, message)
            }
        }
        #elseif canImport(ImageIO)
        return try ImageIOEncoder.encode(
            Bitmap(width: image.width, height: image.height, alphaMode: .straight, pixels: image.straightAlphaPixels),
            as: self, quality: quality)
        #else
        throw failure("no JPEG XL encoder on this platform")
        #endif
    }
}
