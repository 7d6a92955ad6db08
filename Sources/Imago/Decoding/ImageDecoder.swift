import Foundation

/// The built-in decoder: hands the bytes to the codec for their format.
///
/// On Linux that is libjpeg-turbo, libpng, libwebp with libwebpdemux, a Swift GIF decoder, libheif
/// (HEIF/HEIC), libavif (AVIF) and libjxl (JPEG XL); on Apple platforms, ImageIO. ``ImageDecoderRegistry`` holds it by
/// default, behind any decoder you register; the registry is the public way to decode, so this
/// type has package access. Either way it enforces ``DecodingLimits`` before any pixel memory is
/// allocated, and every failure is an ``ImagePipeline/Error`` that says what happened.
package struct ImageDecoder: ImageDecoding {
    /// The built-in decoder.
    public init() {}

    /// Whether `format` is one of the built-in formats (``ImageFormat/allCases``).
    public func canDecode(_ format: ImageFormat) -> Bool { ImageFormat.allCases.contains(format) }

    /// Decodes `data` with the codec for `context.format`, within `context.limits`.
    public func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        try context.limits.check(encodedSize: data.count, url: context.url)
        #if os(Linux)
        switch context.format {
        case .jpeg: return try JPEGDecoder().decode(data, context: context)
        case .png: return try PNGDecoder().decode(data, context: context)
        case .gif: return try GIFDecoder().decode(data, context: context)
        case .webp: return try WebPDecoder().decode(data, context: context)
        case .heif: return try HEIFDecoder().decode(data, context: context)
        case .avif: return try AVIFDecoder().decode(data, context: context)
        case .jxl: return try JXLDecoder().decode(data, context: context)
        default: throw Self.noDecoder(for: context)
        }
        #elseif canImport(ImageIO)
        guard canDecode(context.format) else { throw Self.noDecoder(for: context) }
        if context.format == .heif || context.format == .avif {
            _ = try ISOBMFFHeader.checked(data, context: context)  // bombs refused before ImageIO
        }
        if context.format == .jxl, let size = JXLHeader.size(of: data) {  // likewise, from the SizeHeader
            try context.limits.checkSource(width: size.width, height: size.height, url: context.url)
        }
        return try ImageIODecoder().decode(data, context: context)
        #else
        throw .unsupportedFormat(context.url, detail: "no image codecs on this platform")
        #endif
    }

    static func noDecoder(for context: DecodingContext) -> ImagePipeline.Error {
        .unsupportedFormat(
            context.url,
            detail: "no decoder for \(context.format): register one in the pipeline's ImageDecoderRegistry")
    }

    /// Sniffs `data` and decodes it with the built-in codecs only (package access: the proxy and
    /// the benchmarks; the public way is ``ImageDecoderRegistry/decode(_:url:limits:maximumPixelSize:decodesAllFrames:colorProfileHandling:policy:)``).
    ///
    /// - Parameters:
    ///   - data: the encoded bytes.
    ///   - url: where the bytes came from, for error messages.
    ///   - limits: checked against the header before any pixel memory is allocated.
    ///   - maximumPixelSize: the longer side the caller needs at most; JPEG may then decode smaller.
    ///   - decodesAllFrames: `false` to decode only the first frame of an animation.
    ///   - colorProfileHandling: convert the pixels to sRGB through the colour profile the file
    ///     declares (the default), or keep them as stored with the profile in
    ///     ``ImageContainer/colorProfile``.
    ///   - policy: show a damaged file as browsers do, with its repairs listed (the default), or
    ///     refuse it.
    /// - Throws: `unsupportedFormat` for bytes of no known format (its detail says what they look
    ///   like: empty, an HTML page…), `limitExceeded`, or `decodingFailed`.
    package static func decode(
        _ data: Data, url: URL? = nil, limits: DecodingLimits = DecodingLimits(), maximumPixelSize: Int? = nil,
        decodesAllFrames: Bool = true, colorProfileHandling: ColorProfileHandling = .convertToSRGB,
        policy: DecodingPolicy = .lenient
    ) throws(ImagePipeline.Error) -> ImageContainer {
        guard let format = ImageFormat.sniff(data) else {
            throw .unsupportedFormat(url, detail: describeUnrecognized(data))
        }
        let context = DecodingContext(
            format: format, url: url, limits: limits, maximumPixelSize: maximumPixelSize,
            decodesAllFrames: decodesAllFrames, colorProfileHandling: colorProfileHandling, policy: policy)
        return try ImageDecoder().decode(data, context: context)
    }

    /// What bytes of no supported format look like, for the `unsupportedFormat` error: servers
    /// often answer with an HTML error page under an image URL.
    static func describeUnrecognized(_ data: Data) -> String {
        if data.isEmpty { return "empty data" }
        let head = data.prefix(512)
        let text = String(decoding: head, as: UTF8.self)
            .drop { $0.isWhitespace || $0 == "\u{FEFF}" }
            .lowercased()
        if text.hasPrefix("<!doctype html") || text.hasPrefix("<html") || text.hasPrefix("<head")
            || text.hasPrefix("<body") || (text.hasPrefix("<!--") && text.contains("<html"))
        {
            return "the body is an HTML page, not an image"
        }
        if text.hasPrefix("<svg") || (text.hasPrefix("<?xml") && text.contains("<svg")) {
            return "the body is an SVG drawing; vector images are not decoded"
        }
        if text.hasPrefix("{") || text.hasPrefix("[") { return "the body looks like JSON, not an image" }
        let bytes = Array(head)
        if bytes.count >= 12, Array(bytes[4..<8]) == Array("ftyp".utf8) {
            // HEIF and AVIF brands are sniffed as images; anything else in an ISO box file is media.
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            return "the bytes are an ISO media file of brand '\(brand)' (a video?), not an image"
        }
        if bytes.starts(with: Array("BM".utf8)) { return "the bytes look like a BMP image, which Imago does not decode" }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            return "the bytes are a TIFF image, which Imago does not decode"
        }
        let hex = bytes.prefix(8).map { String(format: "%02X", $0) }.joined(separator: " ")
        return "unrecognised bytes \(hex)\(data.count > 8 ? " …" : "") (\(data.count) bytes)"
    }
}
