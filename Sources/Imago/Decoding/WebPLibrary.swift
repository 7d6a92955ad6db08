#if os(Linux)
import CImagoCodecs
import Foundation

/// libwebp's decoding functions, found at run time with `dlopen`.
///
/// Debian ships the runtime library (`libwebp7`) on most systems but its headers only in
/// `libwebp-dev`, so Imago declares the two functions it needs itself instead of linking. The
/// struct layout they use lives in the C shim (`imago_webp_features`).
struct WebPLibrary: @unchecked Sendable {
    // @unchecked: C function pointers are immutable addresses, safe to call from any thread
    // (libwebp's decoding functions keep no global state).

    /// `WebPGetFeaturesInternal(data, size, features, abiVersion) -> VP8StatusCode`.
    typealias GetFeatures = @convention(c) (
        UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<imago_webp_features>?, Int32
    ) -> Int32
    /// `WebPDecodeRGBAInto(data, size, output, outputSize, stride) -> output or NULL`.
    typealias DecodeRGBAInto = @convention(c) (
        UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?, Int, Int32
    ) -> UnsafeMutablePointer<UInt8>?

    let getFeatures: GetFeatures
    let decodeRGBAInto: DecodeRGBAInto

    /// The system's libwebp, loaded once on first use; `nil` when it is not installed.
    static let shared: WebPLibrary? = load(["libwebp.so.7", "libwebp.so"])

    /// The error for a machine without libwebp.
    static func missing(_ url: URL?) -> ImagePipeline.Error {
        .unsupportedFormat(
            url, detail: "WebP needs libwebp at run time: install the Debian package libwebp7 (apt-get install libwebp7)")
    }

    /// Opens the first of `names` that loads and has both functions.
    static func load(_ names: [String]) -> WebPLibrary? {
        for name in names {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
            guard let features = dlsym(handle, "WebPGetFeaturesInternal"),
                let decode = dlsym(handle, "WebPDecodeRGBAInto")
            else {
                dlclose(handle)
                continue
            }
            // The handle stays open for the life of the process, like a linked library.
            return WebPLibrary(
                getFeatures: unsafeBitCast(features, to: GetFeatures.self),
                decodeRGBAInto: unsafeBitCast(decode, to: DecodeRGBAInto.self))
        }
        return nil
    }

    /// Width, height, alpha and animation flags from the header, or libwebp's status code.
    func features(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<imago_webp_features, WebPStatus> {
        var features = imago_webp_features()
        let status = getFeatures(bytes.baseAddress, bytes.count, &features, IMAGO_WEBP_DECODER_ABI_VERSION)
        return status == 0 ? .success(features) : .failure(WebPStatus(code: status))
    }

    /// Decodes a still WebP into `width * height` straight-alpha RGBA pixels; `false` on failure.
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, into pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int)
        -> Bool
    {
        let stride = width * Bitmap.bytesPerPixel
        return decodeRGBAInto(bytes.baseAddress, bytes.count, pixels, stride * height, Int32(stride)) != nil
    }
}

/// A libwebp `VP8StatusCode` other than OK, in words.
struct WebPStatus: Error, CustomStringConvertible {
    var code: Int32

    var description: String {
        switch code {
        case 1: "libwebp ran out of memory"
        case 2: "libwebp rejected a parameter"
        case 3: "the bitstream is corrupt"
        case 4: "the file uses a feature libwebp does not support"
        case 7: "the data ends too early"
        default: "libwebp status \(code)"
        }
    }
}
#endif
