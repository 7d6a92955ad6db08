#if canImport(ImageIO) && !os(Linux)
import CoreGraphics
import Foundation
import ImageIO

/// The Apple back end of `JPEGEncoder`, `PNGEncoder`, `WebPEncoder`, `AVIFEncoder` and `JXLEncoder`: a `CGImage` over the
/// bitmap's bytes, written by `CGImageDestination`. Kept trivial because it cannot be compiled on Linux.
///
/// ImageIO has always written JPEG and PNG; WebP, AVIF and JPEG XL only where the system lists them among
/// `CGImageDestinationCopyTypeIdentifiers()` (recent OS versions), which is checked at run time, so
/// an older system gets an error that says to encode as PNG or JPEG instead of an empty file.
enum ImageIOEncoder {
    /// Whether this system's ImageIO lists `identifier` (`public.avif`…) among the types it writes.
    static func canWrite(_ identifier: String) -> Bool {
        (CGImageDestinationCopyTypeIdentifiers() as? [String] ?? []).contains(identifier)
    }

    static func encode(_ bitmap: Bitmap, as encoder: some ImageEncoding, quality: Double?)
        throws(ImagePipeline.Error) -> Data
    {
        // The alpha layout as the bitmap says (the encoders pass opaque or straight pixels today;
        // premultiplied ones would otherwise be read as straight and darken soft edges).
        let alphaInfo: CGImageAlphaInfo =
            switch bitmap.alphaMode {
            case .opaque: .noneSkipLast
            case .straight: .last
            case .premultiplied: .premultipliedLast
            }
        guard let provider = CGDataProvider(data: Data(bitmap.pixels) as CFData),
            let space = CGColorSpace(name: CGColorSpace.sRGB),
            let image = CGImage(
                width: bitmap.width, height: bitmap.height, bitsPerComponent: 8, bitsPerPixel: 32,
                bytesPerRow: bitmap.bytesPerRow, space: space, bitmapInfo: CGBitmapInfo(rawValue: alphaInfo.rawValue),
                provider: provider, decode: nil, shouldInterpolate: false, intent: .defaultIntent)
        else { throw encoder.failure("CoreGraphics could not wrap the bitmap") }
        let identifier =
            switch encoder.format {
            case .jpeg: "public.jpeg"
            case .webp: "org.webmproject.webp"
            case .avif: "public.avif"
            case .jxl: "public.jpeg-xl"
            default: "public.png"
            }
        let writable = CGImageDestinationCopyTypeIdentifiers() as? [String] ?? []
        guard writable.contains(identifier) else {
            throw encoder.failure("ImageIO on this system cannot write \(encoder.format); encode as PNG or JPEG")
        }
        let output = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(output as CFMutableData, identifier as CFString, 1, nil)
        else {
            throw encoder.failure("ImageIO has no \(encoder.format) encoder")
        }
        let properties = quality.map { [kCGImageDestinationLossyCompressionQuality: $0] as CFDictionary }
        CGImageDestinationAddImage(destination, image, properties)
        guard CGImageDestinationFinalize(destination) else { throw encoder.failure("ImageIO could not write the image") }
        return output as Data
    }
}
#endif
