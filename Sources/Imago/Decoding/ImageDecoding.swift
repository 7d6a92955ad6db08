import Foundation

/// Turns encoded bytes into an image. Register your own in an ``ImageDecoderRegistry`` to support
/// another format.
///
/// Decoders are chosen by sniffing the bytes (``ImageDecoderRegistry/sniff(_:)``, or a registered decoder's
/// ``recognizeFormat(of:)``), never by the URL's extension or the `Content-Type` alone. A decoder
/// runs off the main thread and must not keep state between calls.
public protocol ImageDecoding: Sendable {
    /// The format of `data` if this decoder recognises it itself (see the default: `nil`).
    func recognizeFormat(of data: Data) -> ImageFormat?

    /// Whether this decoder handles `format`.
    func canDecode(_ format: ImageFormat) -> Bool

    /// Decodes `data`, which ``ImageDecoderRegistry/sniff(_:)`` identified as `context.format`.
    ///
    /// Check `context.limits` against the header before allocating pixel memory. When
    /// `context.maximumPixelSize` is set, the decoder may decode at any reduced scale whose
    /// longer side is still at least that many pixels (JPEG's DCT scaling); the pipeline resamples
    /// to the exact size afterwards.
    /// - Throws: ``ImagePipeline/Error`` (`decodingFailed`, `limitExceeded`, `unsupportedFormat`).
    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer
}

/// What a decoder is told besides the bytes.
public struct DecodingContext: Sendable {
    /// The sniffed format of the bytes.
    public var format: ImageFormat
    /// Where the bytes came from, for error messages.
    public var url: URL?
    /// The limits to enforce.
    public var limits: DecodingLimits
    /// When set, the longer side the caller will display at most; decoders may decode smaller.
    public var maximumPixelSize: Int?
    /// Whether the caller wants every frame of an animation (otherwise the first frame only).
    public var decodesAllFrames: Bool
    /// With ``decodesAllFrames``, the most frames of an animation the caller wants: the first
    /// `frameLimit` are decoded and the rest are never read (imgproxy's `max_animation_frames`).
    /// `nil`: every frame (within ``limits``). Default: `nil`.
    public var frameLimit: Int?
    /// What to do with the colour profile the image declares: convert to sRGB (the default) or
    /// keep the pixels as stored.
    public var colorProfileHandling: ColorProfileHandling
    /// What a complete but damaged file becomes: the picture a browser shows, with its repairs
    /// listed (``DecodingPolicy/lenient``, the default), or an error (``DecodingPolicy/strict``).
    /// ``limits`` hold under either.
    public var policy: DecodingPolicy
    /// Whether the decoder returns the largest thumbnail embedded in the file instead of its
    /// primary image, when the file has one (imgproxy's `enforce_thumbnail`); a file without one
    /// decodes its primary image as before. The built-in decoders read the thumbnails of HEIF and
    /// AVIF files on Linux (libheif); ImageIO on Apple platforms ignores it. Default: `false`.
    public var prefersEmbeddedThumbnail = false
    /// Set by the pipeline for a thumbnail request: an 8-bit conversion to sRGB is left in
    /// `ImageContainer.pendingColorConversion`, to run after the thumbnail at the output size (as
    /// libvips converts), instead of on the larger shrunk-on-load image. Never set for a decode
    /// whose result leaves the pipeline before its thumbnail step.
    var defersColorConversion = false

    /// A context for decoding bytes of `format`.
    public init(
        format: ImageFormat, url: URL? = nil, limits: DecodingLimits = DecodingLimits(),
        maximumPixelSize: Int? = nil, decodesAllFrames: Bool = true,
        colorProfileHandling: ColorProfileHandling = .convertToSRGB, policy: DecodingPolicy = .lenient
    ) {
        self.format = format
        self.policy = policy
        self.url = url
        self.limits = limits
        self.maximumPixelSize = maximumPixelSize
        self.decodesAllFrames = decodesAllFrames
        self.colorProfileHandling = colorProfileHandling
    }
}

extension DecodingContext {
    /// The most frames to decode: 1 without ``decodesAllFrames``, else ``frameLimit`` (at least
    /// 1), else all (`Int.max`).
    public var wantedFrameCount: Int {
        decodesAllFrames ? max(1, frameLimit ?? .max) : 1
    }
}

extension ImageDecoding {
    /// The format of `data` when this decoder recognises it by itself, for formats Imago does not
    /// sniff (an SVG drawing, a format of your own). Default: `nil`, leaving the bytes to the
    /// built-in signatures (``ImageDecoderRegistry/sniff(_:)``).
    ///
    /// An ``ImageDecoderRegistry`` asks its decoders in order before the built-in signatures.
    public func recognizeFormat(of data: Data) -> ImageFormat? { nil }
}
