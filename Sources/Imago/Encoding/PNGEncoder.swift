#if os(Linux)
import CImagoCodecs
#endif
import Foundation

/// Encodes PNG, losslessly: libpng on Linux, ImageIO on Apple platforms.
///
/// An opaque bitmap is written as RGB (a quarter smaller), anything else as RGBA with straight
/// alpha (premultiplied pixels are converted back); with ``paletteColors``, as a palette image.
package struct PNGEncoder: ImageEncoding {
    /// Whether the PNG is Adam7-interlaced (a coarse image first, at the cost of some bytes), as
    /// imgproxy's `IMGPROXY_PNG_INTERLACED`. Linux only; ImageIO writes what it writes. Default: `false`.
    public var isInterlaced: Bool
    /// When set, the pixels are reduced to a palette of at most this many colours (2...256) by
    /// ``PaletteQuantizer`` and written as an 8-bit palette PNG (`PLTE`, `tRNS` for translucent
    /// entries): lossy, usually far smaller. imgproxy's `IMGPROXY_PNG_QUANTIZE` and
    /// `IMGPROXY_PNG_QUANTIZATION_COLORS`. Linux only. Default: `nil`, every pixel kept.
    public var paletteColors: Int?

    /// A PNG encoder; `isInterlaced` and `paletteColors` (clamped to 2...256) as the properties say.
    public init(isInterlaced: Bool = false, paletteColors: Int? = nil) {
        self.isInterlaced = isInterlaced
        self.paletteColors = paletteColors.map { min(max($0, 2), 256) }
    }

    /// Always ``ImageFormat/png``.
    public var format: ImageFormat { .png }

    /// Encodes `image` losslessly.
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for an empty bitmap.
    public func encode(_ image: Bitmap) throws(ImagePipeline.Error) -> Data {
        try checkNotEmpty(image)
        #if os(Linux)
        guard let width = Int32(exactly: image.width), let height = Int32(exactly: image.height) else {
            throw failure("a \(image.width)x\(image.height) bitmap is too large for PNG")
        }
        if let paletteColors {
            let (palette, indices) = PaletteQuantizer(maximumColors: paletteColors).quantize(image.straightAlphaPixels)
            return try encodeWithShim(library: "libpng") { output, size, message in
                imago_png_encode_rows(
                    indices, width, height, image.width, 1, palette, Int32(palette.count / 4), isInterlaced ? 1 : 0, &output,
                    &size, message)
            }
        }
        let hasAlpha = image.alphaMode != .opaque
        let pixels: [UInt8] = hasAlpha ? image.straightAlphaPixels : Self.dropAlpha(image.pixels)
        let stride = image.width * (hasAlpha ? 4 : 3)
        if isInterlaced {
            return try encodeWithShim(library: "libpng") { output, size, message in
                imago_png_encode_rows(pixels, width, height, stride, hasAlpha ? 4 : 3, nil, 0, 1, &output, &size, message)
            }
        }
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
