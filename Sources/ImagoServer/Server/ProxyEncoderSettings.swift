#if os(Linux)
import Imago

/// How the proxy's encoders write each format beyond quality: imgproxy's encoder settings
/// (`IMGPROXY_JPEG_PROGRESSIVE`, `IMGPROXY_PNG_INTERLACED`, `IMGPROXY_PNG_QUANTIZE` and
/// `…_QUANTIZATION_COLORS`, `IMGPROXY_WEBP_EFFORT`, `IMGPROXY_WEBP_PRESET`, `IMGPROXY_AVIF_SPEED`,
/// `IMGPROXY_JXL_EFFORT`), with imgproxy's defaults.
public struct ProxyEncoderSettings: Sendable, Equatable {
    /// Whether JPEG output is progressive. Default: `false`, as imgproxy.
    public var jpegProgressive = false
    /// Whether PNG output is Adam7-interlaced. Default: `false`, as imgproxy.
    public var pngInterlaced = false
    /// When set, PNG output is a palette image of at most this many colours (2...256; imgproxy's
    /// `IMGPROXY_PNG_QUANTIZE` with `…_QUANTIZATION_COLORS`). Default: `nil`, lossless PNG.
    public var pngQuantizationColors: Int? = nil
    /// libwebp's effort (method), 1 (fastest) to 6 (smallest). Default: 4, as imgproxy.
    public var webpEffort = 4
    /// libwebp's preset, what kind of picture WebP output is tuned for (still and animated;
    /// `ImageFormat.WebPPreset`). Default: `default`, as imgproxy.
    public var webpPreset = ImageFormat.WebPPreset.default
    /// libavif's speed, 0 (slowest, smallest) to 9 (fastest). Default: 8, as imgproxy.
    public var avifSpeed = 8
    /// libjxl's effort, 1 (fastest) to 9 (smallest). Default: 4, as imgproxy.
    public var jxlEffort = 4

    /// imgproxy's defaults.
    public init() {}
}
#endif
