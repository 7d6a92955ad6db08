import Foundation

/// The decoders a pipeline tries, by format: yours first, then Imago's built-in decoder
/// (libjpeg-turbo, libpng, libwebp, a Swift GIF decoder, libheif, libavif and libjxl on Linux; ImageIO on
/// Apple platforms). The one entry point for decoding and for telling a format from bytes.
///
/// The bytes are sniffed (``sniff(_:)``) by asking each decoder's
/// ``ImageDecoding/recognizeFormat(of:)`` in order, then the built-in signatures; the first
/// decoder whose ``ImageDecoding/canDecode(_:)`` accepts that format decodes them. Registering a
/// decoder for a built-in format (say, a faster JPEG decoder) therefore replaces the built-in one
/// for it. Bytes at hand are decoded with ``decode(_:url:limits:maximumPixelSize:decodesAllFrames:colorProfileHandling:policy:)``:
///
/// ```swift
/// let container = try ImageDecoderRegistry().decode(data, maximumPixelSize: 512)
/// ```
///
/// Adding a format without forking Imago:
///
/// ```swift
/// struct SVGDecoder: ImageDecoding {
///     static let svg = ImageFormat("svg", mimeType: "image/svg+xml")
///
///     func recognizeFormat(of data: Data) -> ImageFormat? {
///         String(decoding: data.prefix(256), as: UTF8.self).contains("<svg") ? Self.svg : nil
///     }
///     func canDecode(_ format: ImageFormat) -> Bool { format == Self.svg }
///     func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
///         let bitmap = try rasterize(data, limits: context.limits)  // your renderer
///         return try ImageContainer(bitmap: bitmap, format: Self.svg)
///     }
/// }
///
/// var configuration = ImagePipeline.Configuration()
/// configuration.decoders.register(SVGDecoder())
/// let pipeline = ImagePipeline(configuration: configuration)
/// ```
public struct ImageDecoderRegistry: Sendable {
    /// The decoders in the order they are consulted: the last registered first, the built-in
    /// decoder last (unless the registry was made without it).
    public private(set) var decoders: [any ImageDecoding]

    /// A registry holding only the built-in decoder.
    public init() {
        decoders = [ImageDecoder()]
    }

    /// A registry consulting `decoders` in the order given, then the built-in decoder when
    /// `includesBuiltIns` is `true`.
    public init(decoders: [any ImageDecoding], includesBuiltIns: Bool = true) {
        self.decoders = decoders + (includesBuiltIns ? [ImageDecoder()] : [])
    }

    /// Adds `decoder` ahead of every decoder already registered.
    public mutating func register(_ decoder: any ImageDecoding) {
        decoders.insert(decoder, at: 0)
    }

    /// The first decoder that accepts `format`, or `nil`.
    public func decoder(for format: ImageFormat) -> (any ImageDecoding)? {
        decoders.first { $0.canDecode(format) }
    }

    /// The format of `data`: the first decoder that recognises it, else the built-in signatures
    /// (JPEG, PNG, GIF, WebP, HEIF, AVIF, JPEG XL; never by a URL's extension or a `Content-Type`); `nil`
    /// when nothing does. The one format sniffer: `ImageDecoderRegistry().sniff(data)` knows the
    /// built-in formats.
    public func sniff(_ data: Data) -> ImageFormat? {
        for decoder in decoders {
            if let format = decoder.recognizeFormat(of: data) { return format }
        }
        return ImageFormat.sniff(data)
    }

    /// Whether a registered or built-in decoder handles `format`.
    public func canDecode(_ format: ImageFormat) -> Bool { decoder(for: format) != nil }

    /// Decodes with the first decoder that accepts `context.format`.
    /// - Throws: `unsupportedFormat` when none does, else what that decoder throws.
    public func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        guard let decoder = decoder(for: context.format) else { throw ImageDecoder.noDecoder(for: context) }
        return try decoder.decode(data, context: context)
    }

    /// Sniffs `data` (``sniff(_:)``) and decodes it with the first decoder that accepts its format.
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - url: where the bytes came from, for error messages. Default: `nil`.
    ///   - limits: checked against the header before any pixel memory is allocated. Default:
    ///     `DecodingLimits()`.
    ///   - maximumPixelSize: the longer side the caller needs at most; a decoder may then decode
    ///     at a reduced scale (JPEG, WebP). Default: `nil`, full size.
    ///   - decodesAllFrames: `false` to decode only the first frame of an animation. Default: `true`.
    ///   - colorProfileHandling: convert the pixels to sRGB through the colour profile the file
    ///     declares (the default), or keep them as stored with the profile in
    ///     ``ImageContainer/colorProfile``.
    ///   - policy: show a damaged file as browsers do, with its repairs listed (the default), or
    ///     refuse it.
    /// - Throws: `unsupportedFormat` for bytes no decoder recognises (its detail says what they
    ///   look like: empty, an HTML page…), `limitExceeded`, or `decodingFailed`.
    public func decode(
        _ data: Data, url: URL? = nil, limits: DecodingLimits = DecodingLimits(), maximumPixelSize: Int? = nil,
        decodesAllFrames: Bool = true, colorProfileHandling: ColorProfileHandling = .convertToSRGB,
        policy: DecodingPolicy = .lenient
    ) throws(ImagePipeline.Error) -> ImageContainer {
        guard let format = sniff(data) else {
            throw .unsupportedFormat(url, detail: ImageDecoder.describeUnrecognized(data))
        }
        let context = DecodingContext(
            format: format, url: url, limits: limits, maximumPixelSize: maximumPixelSize,
            decodesAllFrames: decodesAllFrames, colorProfileHandling: colorProfileHandling, policy: policy)
        return try decode(data, context: context)
    }
}
