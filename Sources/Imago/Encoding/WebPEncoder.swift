#if os(Linux)
import CImagoCodecs
#endif
import Foundation

/// Encodes WebP, lossy or lossless, keeping transparency either way: libwebp on Linux, ImageIO on
/// Apple platforms (where the system must be able to write WebP, see ``encode(_:)``).
///
/// Lossy WebP (VP8) is what photographs and thumbnails want: about a third smaller than a JPEG of
/// the same look. Lossless WebP (VP8L) keeps every pixel, like PNG, and is usually smaller than it.
package struct WebPEncoder: ImageEncoding {
    /// For lossy encoding, 0 (smallest) to 1 (best), as for every quality in Imago; 0.85 by
    /// default, as for `JPEGEncoder`. Ignored when ``isLossless``.
    public var quality: Double

    /// Whether every pixel is kept exactly (VP8L); `false` by default (lossy, at ``quality``).
    public var isLossless: Bool

    /// libwebp's `method`, 0 (fastest) to 6 (slowest, smallest): how hard the encoder searches for
    /// a smaller file at the same quality (imgproxy's `IMGPROXY_WEBP_EFFORT`). Linux only.
    /// Default: 4, libwebp's and imgproxy's.
    public var effort: Int

    /// What kind of picture the encoder tunes itself for (imgproxy's `IMGPROXY_WEBP_PRESET`):
    /// libwebp's `WebPConfigPreset`, applied before ``quality`` and ``effort``. Linux only: Apple's
    /// ImageIO has no such setting and ignores it. Default: ``ImageFormat/WebPPreset/default``.
    public var preset: ImageFormat.WebPPreset

    /// A lossy encoder at `quality` (clamped to 0...1; not a number: the default), or a lossless
    /// one, searching with `effort` (clamped to 0...6), tuned by `preset`.
    public init(
        quality: Double = ImageContainer.defaultEncodingQuality, isLossless: Bool = false, effort: Int = 4,
        preset: ImageFormat.WebPPreset = .default
    ) {
        self.quality = quality.isNaN ? ImageContainer.defaultEncodingQuality : min(max(quality, 0), 1)
        self.isLossless = isLossless
        self.effort = min(max(effort, 0), 6)
        self.preset = preset
    }

    /// Always ``ImageFormat/webp``.
    public var format: ImageFormat { .webp }

    /// Encodes `image`.
    ///
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for an empty bitmap, one larger
    ///   than WebP's 16,383 pixels a side, or, on Apple platforms, a system whose ImageIO cannot
    ///   write WebP (then encode as PNG or JPEG).
    public func encode(_ image: Bitmap) throws(ImagePipeline.Error) -> Data {
        try checkNotEmpty(image)
        let side = 16_383
        guard image.width <= side, image.height <= side else {
            throw failure("a \(image.width)x\(image.height) bitmap is too large for WebP (16,383 pixels a side)")
        }
        #if os(Linux)
        // Both sides fit in 14 bits (checked above), so the C int conversions cannot truncate.
        let pixels = image.straightAlphaPixels
        let lossless: Int32 = isLossless ? 1 : 0
        // In lossless mode libwebp reads `quality` as effort: its own default, 75.
        let quality = isLossless ? 75 : Int32((quality * 100).rounded())
        return try encodeWithShim(library: "libwebp") { output, size, message in
            imago_webp_encode(
                pixels, Int32(image.width), Int32(image.height), image.bytesPerRow, lossless, quality,
                Int32(min(max(effort, 0), 6)), preset.libwebpValue, &output, &size, message)
        }
        #elseif canImport(ImageIO)
        // ImageIO reads a quality of 1.0 as "lossless where the format supports it".
        return try ImageIOEncoder.encode(
            Bitmap(width: image.width, height: image.height, alphaMode: .straight, pixels: image.straightAlphaPixels),
            as: self, quality: isLossless ? 1.0 : quality)
        #else
        throw failure("no WebP encoder on this platform")
        #endif
    }
}

extension ImageFormat.WebPPreset {
    /// libwebp's `WebPPreset` value (0...5).
    var libwebpValue: Int32 {
        switch self {
        case .default: 0
        case .picture: 1
        case .photo: 2
        case .drawing: 3
        case .icon: 4
        case .text: 5
        }
    }
}
