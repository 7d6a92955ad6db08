import Foundation

extension ImageContainer {
    /// The quality every lossy encoding uses when none is given: 0.85 (0 smallest, 1 best), where
    /// JPEG, WebP and AVIF artefacts are hard to see. ``encoded(as:quality:)`` with `nil` and the
    /// disk cache's processed variants use it.
    public static let defaultEncodingQuality = 0.85

    /// The still image encoded as `format`, on every platform: the bytes to write to a file or
    /// send over the network.
    ///
    /// ```swift
    /// let response = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 256))
    /// try response.container.encoded(as: .png).write(to: URL(fileURLWithPath: "thumbnail.png"))
    /// ```
    ///
    /// - Parameters:
    ///   - format: ``ImageFormat/png`` (lossless), ``ImageFormat/jpeg`` (transparency composited
    ///     onto white), ``ImageFormat/webp``, ``ImageFormat/avif`` or ``ImageFormat/jxl``
    ///     (transparency kept).
    ///   - quality: for lossy formats, 0 (smallest) to 1 (best); `nil` uses
    ///     ``defaultEncodingQuality`` (0.85) for JPEG, WebP, AVIF and JPEG XL alike. For WebP and
    ///     JPEG XL, 1 means lossless (VP8L; JPEG XL's modular mode), as it does for WebP through
    ///     ImageIO on Apple platforms. JPEG XL maps quality to libjxl's distance as `cjxl -q` does.
    ///     Ignored for PNG.
    ///
    /// Pixels are written as sRGB without a profile, unless the container kept its colour profile
    /// (``ColorProfileHandling/keep``, Linux): then the profile is written into the file (JPEG
    /// `APP2`, PNG `iCCP`, WebP `ICCP`, AVIF `colr`, JPEG XL's colour encoding), so the pixels still mean what they meant.
    ///
    /// A container with a ``gainMap`` is written as JPEG with its map (an Ultra HDR / ISO 21496-1
    /// gain-map JPEG: MPF, `hdrgm` XMP and ISO 21496-1 metadata, as libultrahdr writes them), so HDR
    /// displays still show its HDR rendition. The other formats cannot carry the map and get the
    /// SDR base alone, never the map applied.
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for a format Imago cannot write,
    ///   a quality outside 0...1, pixels the codec refuses, WebP, AVIF or JPEG XL on an Apple system
    ///   whose ImageIO cannot write it, or AVIF from a libavif without an AV1 encoder.
    public func encoded(as format: ImageFormat, quality: Double? = nil) throws(ImagePipeline.Error) -> Data {
        #if os(Linux)
        let profile = pixelColorProfile
        #else
        let profile: ColorProfile? = nil  // `bitmap()` draws in sRGB on Apple platforms
        #endif
        var encoded = try Self.encoder(for: format, quality: quality, colorProfile: profile).encode(bitmap())
        #if os(Linux)
        // Pixels that kept their profile carry it; sRGB pixels are written without one. AVIF and
        // JPEG XL get it through their encoders (libavif's `colr` box, libjxl's colour encoding).
        if let profile, !Self.encoderWritesProfile(format) {
            encoded = try profile.embedded(in: encoded, format: format)
        }
        #endif
        if format == .jpeg, let gainMap {
            encoded = try GainMapJPEGWriter.write(gainMap, base: encoded, quality: quality ?? Self.defaultEncodingQuality)
        }
        return encoded
    }

    /// The encoder that writes `format` at `quality` (0...1), with `colorProfile` for the formats
    /// whose encoder writes the profile itself (``encoderWritesProfile(_:)``).
    static func encoder(
        for format: ImageFormat, quality: Double?, colorProfile: ColorProfile? = nil
    ) throws(ImagePipeline.Error) -> any ImageEncoding {
        switch format {
        case .png:
            return PNGEncoder()
        case .jpeg:
            guard let quality else { return JPEGEncoder() }
            return JPEGEncoder(quality: try checked(quality, for: .jpeg))
        case .webp:
            guard let quality else { return WebPEncoder() }
            return WebPEncoder(quality: try checked(quality, for: .webp), isLossless: quality == 1)
        case .avif:
            var encoder = AVIFEncoder(colorProfile: colorProfile)
            if let quality { encoder.quality = try checked(quality, for: .avif) }
            return encoder
        case .jxl:
            var encoder = JXLEncoder(colorProfile: colorProfile)
            if let quality { encoder.quality = try checked(quality, for: .jxl) }
            return encoder
        default:
            throw .encodingFailed(format, reason: "Imago cannot write \(format) yet; encode as PNG, JPEG, WebP, AVIF or JPEG XL")
        }
    }

    /// Whether `format`'s encoder writes a kept colour profile itself (AVIF, JPEG XL), so it is
    /// not embedded afterwards.
    static func encoderWritesProfile(_ format: ImageFormat) -> Bool { format == .avif || format == .jxl }

    /// `quality` when it is within 0...1, or an error naming the format.
    private static func checked(_ quality: Double, for format: ImageFormat) throws(ImagePipeline.Error) -> Double {
        guard quality.isFinite, (0...1).contains(quality) else {
            throw .encodingFailed(format, reason: "quality \(quality) is outside 0...1")
        }
        return quality
    }
}
