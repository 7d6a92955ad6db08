import Imago

/// What a proxy request asks for: the resize, the output format and quality, the background,
/// parsed from the options segments of a processing path (imgproxy's grammar, a subset).
///
/// A width or height of 0 means "follow the other side's aspect ratio"; both 0 means no resize.
public struct ProcessingOptions: Sendable, Hashable {
    /// How the image is fitted to the width and height.
    public enum ResizingType: String, Sendable, Hashable, CaseIterable {
        /// Keep the aspect ratio; the whole image fits inside width x height.
        case fit
        /// Keep the aspect ratio; cover width x height, then cut the overflow, centred.
        case fill
        /// Ignore the aspect ratio: exactly width x height.
        case force
    }

    /// The encoding of the response.
    public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
        case jpeg
        case png
        case webp
        /// WebP when the client's `Accept` names `image/webp`, else JPEG (opaque) or PNG (alpha).
        case auto
    }

    /// Default: ``ResizingType/fit``.
    public var resizingType: ResizingType = .fit
    /// Target width in CSS pixels (multiplied by ``devicePixelRatio``); 0: from the height. Default: 0.
    public var width: Int = 0
    /// Target height in CSS pixels (multiplied by ``devicePixelRatio``); 0: from the width. Default: 0.
    public var height: Int = 0
    /// Whether an image smaller than the target is enlarged. Default: `false`.
    public var enlarge: Bool = false
    /// Device-pixel ratio, 1...8 in steps the URL gives. Default: 1.
    public var devicePixelRatio: Double = 1
    /// Quality of lossy formats, 0.01...1 (the URL's 1...100, in hundredths: 0 to 1, as for every
    /// quality in Imago); `nil`: the server's default. Default: `nil`.
    public var quality: Double?
    /// Output format. Default: ``OutputFormat/auto``.
    public var format: OutputFormat = .auto
    /// Background for formats without alpha (JPEG): transparent pixels are composited onto it.
    /// Default: `nil` (white, as the JPEG encoder does).
    public var background: RGBA?
    /// Whether the output is converted to sRGB and written without a profile (`true`), or keeps
    /// the source's pixels and profile (`false`); `nil`: the server's
    /// ``ImageProxyConfiguration/stripsColorProfile``. imgproxy's `strip_color_profile`. Default: `nil`.
    public var stripColorProfile: Bool?

    public init() {}

    /// The output size in pixels: width and height times the ratio, rounded, 0 kept as 0; a side
    /// that was given stays at least 1 (a ratio that rounds it to 0 must not turn it into "follow
    /// the aspect ratio", which has no bound of its own).
    public var pixelWidth: Int { Self.scaled(width, by: devicePixelRatio) }
    /// See ``pixelWidth``.
    public var pixelHeight: Int { Self.scaled(height, by: devicePixelRatio) }

    private static func scaled(_ length: Int, by ratio: Double) -> Int {
        guard length > 0 else { return 0 }
        // Both are bounded by the parser (length ≤ 100,000, ratio ≤ 8), so this cannot overflow.
        return max(1, Int((Double(length) * ratio).rounded()))
    }

    /// A canonical text of the options, for cache keys and ETags: equal options, equal text.
    public var canonical: String {
        var parts = ["rs:\(resizingType.rawValue):\(width):\(height):\(enlarge ? 1 : 0)", "dpr:\(devicePixelRatio)"]
        if let quality { parts.append("q:\(Int((quality * 100).rounded()))") }
        parts.append("f:\(format.rawValue)")
        if let background {
            parts.append("bg:\(ProcessingOptionsParser.hex(background))")
        }
        if let stripColorProfile { parts.append("scp:\(stripColorProfile ? 1 : 0)") }
        return parts.joined(separator: "/")
    }
}
