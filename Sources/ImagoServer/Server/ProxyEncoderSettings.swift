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
    /// libwebp's preset, what kind of picture WebP output is tuned for (still and animated).
    /// Default: ``WebPPreset/default``, as imgproxy.
    public var webpPreset = WebPPreset.default
    /// libavif's speed, 0 (slowest, smallest) to 9 (fastest). Default: 8, as imgproxy.
    public var avifSpeed = 8
    /// libjxl's effort, 1 (fastest) to 9 (smallest). Default: 4, as imgproxy.
    public var jxlEffort = 4

    /// imgproxy's defaults.
    public init() {}

    /// libwebp's presets as imgproxy names them (`IMGPROXY_WEBP_PRESET`): each tunes the loop
    /// filter, sharpness and noise shaping for a kind of picture before quality and effort apply.
    public enum WebPPreset: String, Sendable, CaseIterable {
        /// libwebp's defaults.
        case `default`
        /// A digital picture, such as a portrait or an indoor shot.
        case picture
        /// An outdoor photograph, in natural light.
        case photo
        /// A hand or line drawing, with high-contrast details.
        case drawing
        /// A small, colourful image.
        case icon
        /// Text-like pictures.
        case text

        /// The encoder's preset of the same name.
        var encoderPreset: WebPEncoder.Preset {
            switch self {
            case .default: .default
            case .picture: .picture
            case .photo: .photo
            case .drawing: .drawing
            case .icon: .icon
            case .text: .text
            }
        }
    }
}
#endif
