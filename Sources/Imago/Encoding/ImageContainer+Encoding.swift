import Foundation

extension ImageContainer {
    /// The still image encoded as `format`, on every platform: the bytes to write to a file or
    /// send over the network.
    ///
    /// ```swift
    /// let response = try await pipeline.image(for: ImageRequest(url: url, thumbnailPixelSize: 256))
    /// try response.container.encoded(as: .png).write(to: URL(fileURLWithPath: "thumbnail.png"))
    /// ```
    ///
    /// - Parameters:
    ///   - format: ``ImageFormat/png`` (lossless) or ``ImageFormat/jpeg`` (transparency composited
    ///     onto white).
    ///   - quality: for lossy formats, 0 (smallest) to 1 (best); `nil` uses the encoder's default
    ///     (JPEG: 0.85). Ignored for PNG.
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for a format Imago cannot write
    ///   or pixels the codec refuses.
    public func encoded(as format: ImageFormat, quality: Double? = nil) throws(ImagePipeline.Error) -> Data {
        try Self.encoder(for: format, quality: quality).encode(bitmap())
    }

    /// The encoder that writes `format` at `quality` (0...1).
    static func encoder(for format: ImageFormat, quality: Double?) throws(ImagePipeline.Error) -> any ImageEncoding {
        switch format {
        case .png:
            return PNGEncoder()
        case .jpeg:
            guard let quality else { return JPEGEncoder() }
            guard quality.isFinite, (0...1).contains(quality) else {
                throw .encodingFailed(.jpeg, reason: "quality \(quality) is outside 0...1")
            }
            return JPEGEncoder(quality: Int((quality * 100).rounded()))
        default:
            throw .encodingFailed(format, reason: "Imago cannot write \(format) yet; encode as PNG or JPEG")
        }
    }
}
