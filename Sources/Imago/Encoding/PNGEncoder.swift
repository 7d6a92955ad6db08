#if os(Linux)
import CImagoCodecs
#endif
import Foundation

/// Encodes PNG, losslessly: libpng on Linux, ImageIO on Apple platforms.
///
/// An opaque bitmap is written as RGB (a quarter smaller), anything else as RGBA with straight
/// alpha (premultiplied pixels are converted back).
package struct PNGEncoder: ImageEncoding {
    /// A PNG encoder (it has no options).
    public init() {}

    /// Always ``ImageFormat/png``.
    public var format: ImageFormat { .png }

    /// Encodes `image` losslessly.
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for an empty bitmap.
    public func encode(_ image: Bitmap) throws(ImagePipeline.Error) -> Data {
        try checkNotEmpty(image)
        #if os(Linux)
        let hasAlpha = image.alphaMode != .opaque
        let pixels: [UInt8] = hasAlpha ? image.straightAlphaPixels : Self.dropAlpha(image.pixels)
        let stride = image.width * (hasAlpha ? 4 : 3)
        return try encodeWithShim(library: "libpng") { output, size, message in
            imago_png_encode(
                pixels, Int32(image.width), Int32(image.height), stride, hasAlpha ? 1 : 0, &output, &size, message)
        }
        #elseif canImport(ImageIO)
        return try ImageIOEncoder.encode(
            Bitmap(width: image.width, height: image.height, alphaMode: .straight, pixels: image.straightAlphaPixels),
            as: self, quality: nil)
        #else
        throw failure("no PNG encoder on this platform")
        #endif
    }

    /// RGBA to RGB.
    private static func dropAlpha(_ rgba: [UInt8]) -> [UInt8] {
        var rgb = [UInt8]()
        rgb.reserveCapacity(rgba.count / 4 * 3)
        for index in stride(from: 0, to: rgba.count, by: 4) {
            rgb.append(rgba[index])
            rgb.append(rgba[index + 1])
            rgb.append(rgba[index + 2])
        }
        return rgb
    }
}
