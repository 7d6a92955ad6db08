import Foundation

/// The decoders a pipeline tries, by format: yours first, then Imago's built-in ``ImageDecoder``.
///
/// The bytes are sniffed by asking each decoder's ``ImageDecoding/recognizeFormat(of:)`` in order,
/// then the built-in signatures (``ImageFormat/sniff(_:)``); the first decoder whose
/// ``ImageDecoding/canDecode(_:)`` accepts that format decodes them. Registering a decoder for a
/// built-in format (say, a faster JPEG decoder) therefore replaces the built-in one for it.
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
public struct ImageDecoderRegistry: ImageDecoding {
    /// The decoders in the order they are consulted: the last registered first, the built-in
    /// ``ImageDecoder`` last (unless the registry was made without it).
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

    /// The format of `data`: the first decoder that recognises it, else the built-in signatures.
    public func sniff(_ data: Data) -> ImageFormat? {
        for decoder in decoders {
            if let format = decoder.recognizeFormat(of: data) { return format }
        }
        return ImageFormat.sniff(data)
    }

    /// The format the registered decoders, then the built-in signatures, recognise.
    public func recognizeFormat(of data: Data) -> ImageFormat? { sniff(data) }

    /// Whether a registered or built-in decoder handles `format`.
    public func canDecode(_ format: ImageFormat) -> Bool { decoder(for: format) != nil }

    /// Decodes with the first decoder that accepts `context.format`.
    /// - Throws: `unsupportedFormat` when none does, else what that decoder throws.
    public func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        guard let decoder = decoder(for: context.format) else { throw ImageDecoder.noDecoder(for: context) }
        return try decoder.decode(data, context: context)
    }
}
