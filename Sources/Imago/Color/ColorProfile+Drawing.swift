#if os(Linux)
import Foundation

extension ColorProfile {
    /// `bitmap`, whose pixels are sRGB, in this profile's space: what is drawn in sRGB (a
    /// watermark, a background colour) onto pixels kept in this profile, so that it shows in the
    /// colours it has in sRGB. Alpha is kept; premultiplied pixels are converted unpremultiplied.
    /// `nil` when this is not an RGB profile or Little CMS cannot build the transform: the caller
    /// then draws the sRGB values as they are.
    package func converting(fromSRGB bitmap: Bitmap) -> Bitmap? {
        guard colorSpace == .rgb, case .success(let transform) = ColorTransformCache.shared.transform(
            profile: data, layout: .srgbToProfileRGBA8)
        else { return nil }
        var converted = bitmap
        let premultiplied = bitmap.alphaMode == .premultiplied
        if premultiplied { Self.scaleColours(of: &converted.pixels, unpremultiplying: true) }
        transform.apply(to: &converted)
        if premultiplied { Self.scaleColours(of: &converted.pixels, unpremultiplying: false) }
        return converted
    }

    /// `color`, an sRGB value, in this profile's space (``converting(fromSRGB:)``).
    package func converting(fromSRGB color: RGBA) -> RGBA? {
        let pixel = Bitmap(width: 1, height: 1, alphaMode: .straight, pixels: [color.r, color.g, color.b, color.a])
        guard let converted = converting(fromSRGB: pixel), converted.pixels.count >= 4 else { return nil }
        return RGBA(converted.pixels[0], converted.pixels[1], converted.pixels[2], converted.pixels[3])
    }

    /// Divides (or multiplies) each pixel's colour channels by its alpha.
    private static func scaleColours(of pixels: inout [UInt8], unpremultiplying: Bool) {
        var index = 0
        while index + 3 < pixels.count {
            let alpha = Int(pixels[index + 3])
            for channel in index..<index + 3 {
                let value = Int(pixels[channel])
                if unpremultiplying {
                    pixels[channel] = alpha == 0 ? 0 : UInt8(min(255, (value * 255 + alpha / 2) / alpha))
                } else {
                    pixels[channel] = UInt8((value * alpha + 127) / 255)
                }
            }
            index += 4
        }
    }
}
#endif
