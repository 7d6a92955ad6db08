import Foundation

extension ImageContainer {
    /// Every frame encoded as an animation in `format` (``ImageFormat/gif``, or
    /// ``ImageFormat/webp`` and ``ImageFormat/jxl`` on Linux), with the frames' display times and ``loopCount``; a still
    /// container becomes a one-frame animation. The way to keep a processed animation animated:
    /// ``encoded(as:quality:)`` writes the still image (the first frame).
    ///
    /// ```swift
    /// let response = try await pipeline.image(for: ImageRequest(url: gif, maximumPixelSize: 128))
    /// try response.container.encodedAnimation(as: .gif).write(to: URL(fileURLWithPath: "small.gif"))
    /// ```
    ///
    /// - Parameters:
    ///   - format: ``ImageFormat/gif``, or ``ImageFormat/webp`` and ``ImageFormat/jxl`` on Linux.
    ///   - quality: for WebP and JPEG XL, 0 (smallest) to 1 (lossless, as for stills); `nil`: 0.85. GIF has no
    ///     quality (a fixed palette of 252 colours, dithered; alpha below half is transparent).
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for another format, a quality
    ///   outside 0...1, or pixels the codec refuses.
    public func encodedAnimation(as format: ImageFormat, quality: Double? = nil) throws(ImagePipeline.Error) -> Data {
        try encodedAnimation(as: format, quality: quality, webpEffort: 4)
    }

    /// ``encodedAnimation(as:quality:)`` with libwebp's `webpEffort` (0...6, ``WebPEncoder/effort``)
    /// and `webpPreset` (``WebPEncoder/preset``) for WebP: the proxy's `IMGPROXY_WEBP_EFFORT` and
    /// `IMGPROXY_WEBP_PRESET`.
    package func encodedAnimation(
        as format: ImageFormat, quality: Double?, webpEffort: Int, webpPreset: ImageFormat.WebPPreset = .default
    ) throws(ImagePipeline.Error) -> Data {
        var bitmaps: [(bitmap: Bitmap, duration: Duration)] = []
        if frames.isEmpty {
            bitmaps.append((try bitmap(), FrameTiming.replacementDuration))
        } else {
            for frame in frames {
                guard let bitmap = frame.image.bitmap else {
                    throw .encodingFailed(format, reason: "a frame's pixels could not be read")
                }
                bitmaps.append((bitmap, frame.duration))
            }
        }
        switch format {
        case .gif:
            return try GIFEncoder().encodeAnimation(bitmaps, loopCount: loopCount)
        case .webp:
            #if os(Linux)
            guard var encoder = try Self.encoder(for: .webp, quality: quality) as? WebPEncoder else {
                throw .encodingFailed(.webp, reason: "no WebP encoder")
            }
            encoder.effort = min(max(webpEffort, 0), 6)
            encoder.preset = webpPreset
            return try encoder.encodeAnimation(bitmaps, loopCount: loopCount)
            #else
            throw .encodingFailed(.webp, reason: "animated WebP is written on Linux only; encode the animation as GIF")
            #endif
        case .jxl:
            #if os(Linux)
            guard var encoder = try Self.encoder(for: .jxl, quality: quality) as? JXLEncoder else {
                throw .encodingFailed(.jxl, reason: "no JPEG XL encoder")
            }
            encoder.colorProfile = pixelColorProfile
            return try encoder.encodeAnimation(bitmaps, loopCount: loopCount)
            #else
            throw .encodingFailed(.jxl, reason: "animated JPEG XL is written on Linux only; encode the animation as GIF")
            #endif
        default:
            throw .encodingFailed(format, reason: "Imago writes animations as GIF, WebP or JPEG XL, not \(format)")
        }
    }
}
