import Foundation

#if os(Linux)
import CImagoCodecs
#endif

/// Turns a ``Bitmap`` into encoded bytes: used to store processed variants on disk and by the
/// proxy (package access: the public way to encode is ``ImageContainer/encoded(as:quality:)``).
///
/// `JPEGEncoder`, `PNGEncoder`, `WebPEncoder`, `AVIFEncoder` and `JXLEncoder` implement it:
/// libjpeg-turbo, libpng, libwebp, libavif and libjxl on Linux, ImageIO on Apple platforms. Every lossy encoder defaults
/// to ``ImageContainer/defaultEncodingQuality``.
package protocol ImageEncoding: Sendable {
    /// The format of the bytes ``encode(_:)`` returns.
    var format: ImageFormat { get }

    /// Encodes `image`.
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` naming the format
    ///   when the codec refuses the image (an empty bitmap, say).
    func encode(_ image: Bitmap) throws(ImagePipeline.Error) -> Data
}

extension ImageEncoding {
    /// The error for a codec that could not encode.
    func failure(_ reason: String) -> ImagePipeline.Error {
        .encodingFailed(format, reason: reason)
    }

    /// Refuses a bitmap with no pixels, which neither codec can store.
    func checkNotEmpty(_ image: Bitmap) throws(ImagePipeline.Error) {
        guard image.width > 0, image.height > 0 else {
            throw failure("a \(image.width)x\(image.height) bitmap has no pixels to encode")
        }
    }

    /// The canvas of an animation's `frames`: the first frame's size, refused when there is no
    /// frame, when it has no pixels, when a side passes `maximumSide` (the format's limit) or when
    /// a frame has another size.
    func animationCanvas(
        _ frames: [(bitmap: Bitmap, duration: Duration)], maximumSide: Int
    ) throws(ImagePipeline.Error) -> (width: Int, height: Int) {
        guard let first = frames.first?.bitmap else { throw failure("an animation needs at least one frame") }
        try checkNotEmpty(first)
        let (width, height) = (first.width, first.height)
        guard width <= maximumSide, height <= maximumSide else {
            throw failure("a \(width)x\(height) canvas is too large for \(format) (\(maximumSide) pixels a side)")
        }
        for (index, frame) in frames.enumerated() where frame.bitmap.width != width || frame.bitmap.height != height {
            throw failure("frame \(index + 1) is \(frame.bitmap.width)x\(frame.bitmap.height), the canvas \(width)x\(height)")
        }
        return (width, height)
    }
}

extension Bitmap {
    /// The pixels with straight alpha (what PNG stores), un-premultiplying if needed.
    var straightAlphaPixels: [UInt8] {
        guard alphaMode == .premultiplied else { return pixels }
        var straight = pixels
        for index in stride(from: 0, to: straight.count, by: 4) {
            let alpha = Int(straight[index + 3])
            for channel in 0..<3 {
                let value = Int(straight[index + channel])
                straight[index + channel] = alpha == 0 ? 0 : UInt8(min(255, (value * 255 + alpha / 2) / alpha))
            }
        }
        return straight
    }

    /// The pixels composited onto white and made opaque (what JPEG, which has no alpha, stores).
    var opaqueOnWhitePixels: [UInt8] {
        guard alphaMode != .opaque else { return pixels }
        var opaque = pixels
        let premultiplied = alphaMode == .premultiplied
        for index in stride(from: 0, to: opaque.count, by: 4) {
            let alpha = Int(opaque[index + 3])
            for channel in 0..<3 {
                let value = Int(opaque[index + channel])
                let covered = premultiplied ? value * 255 : value * alpha
                opaque[index + channel] = UInt8(min(255, (covered + 255 * (255 - alpha) + 127) / 255))
            }
            opaque[index + 3] = 255
        }
        return opaque
    }
}

#if os(Linux)
extension ImageEncoding {
    /// Calls a C encoding shim, which mallocs its output or writes a message on failure, and takes
    /// the bytes.
    func encodeWithShim(
        library: String,
        _ call: (inout UnsafeMutablePointer<UInt8>?, inout Int, UnsafeMutablePointer<CChar>) -> Int32
    ) throws(ImagePipeline.Error) -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { call(&output, &size, $0.baseAddress!) }
        guard status == IMAGO_OK, let output else {
            throw failure("\(library): \(message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
        }
        defer { imago_free(output) }
        return Data(bytes: output, count: size)
    }
}
#endif
