#if os(Linux)
import CImagoCodecs
import Foundation

/// Decodes WebP (lossy, lossless, with alpha, animated) with the system's libwebp, loaded at run
/// time.
///
/// Without libwebp it fails with an `unsupportedFormat` error that says what to install. Animated
/// files are taken apart here (`ANMF` chunks) and each frame decoded by libwebp, so no
/// libwebpdemux is needed.
struct WebPDecoder: ImageDecoding {
    /// The library to decode with; `nil` stands for a machine without libwebp.
    var library: WebPLibrary? = WebPLibrary.shared

    func canDecode(_ format: ImageFormat) -> Bool { format == .webp }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        guard let library else { throw WebPLibrary.missing(context.url) }
        return try data.withBytes { bytes throws(ImagePipeline.Error) in
            let features: imago_webp_features
            switch library.features(bytes) {
            case .success(let found): features = found
            case .failure(let status): throw .decodingFailed(context.url, .webp, reason: status.description)
            }
            let width = Int(features.width), height = Int(features.height)
            try context.limits.check(width: width, height: height, url: context.url)
            if features.has_animation != 0 {
                let animation = WebPAnimation(library: library, context: context, width: width, height: height)
                return try animation.decode(bytes)
            }
            let alphaMode: Bitmap.AlphaMode = features.has_alpha != 0 ? .straight : .opaque
            guard let bitmap = Self.decodeStill(bytes, library: library, width: width, height: height, alphaMode: alphaMode)
            else { throw .decodingFailed(context.url, .webp, reason: "libwebp could not decode the bitstream") }
            return ImageContainer(image: PlatformImage(bitmap), format: .webp)
        }
    }

    /// One still image of the declared size, or `nil` when libwebp fails.
    static func decodeStill(
        _ bytes: UnsafeBufferPointer<UInt8>, library: WebPLibrary, width: Int, height: Int, alphaMode: Bitmap.AlphaMode
    ) -> Bitmap? {
        let pixels = [UInt8].filled(count: width * height * Bitmap.bytesPerPixel) { buffer in
            library.decode(bytes, into: buffer, width: width, height: height)
        }
        return pixels.map { Bitmap(width: width, height: height, alphaMode: alphaMode, pixels: $0) }
    }
}
#endif
