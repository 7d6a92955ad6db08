#if os(Linux)
import Foundation
import Imago

extension ImageProxy {
    /// The format an animation is written in for the chosen `format`: GIF and WebP keep it
    /// animated (with no format asked, ``preferredFormat(source:animated:transparent:)`` picks
    /// the first preferred format that animates, GIF by default, as imgproxy does). `nil`: the
    /// output is a still (the first frame).
    static func animatedFormat(_ format: ImageFormat) -> ImageFormat? {
        switch format {
        case .gif: .gif
        case .webp: .webp
        default: nil
        }
    }

    /// The pipeline's animation limits for a request answered in `format`, as imgproxy sets them:
    /// the first `maf` frames (the URL's, else the server's) when the output can animate, else
    /// only the first frame, so no other is ever decoded; with more than one frame, each frame
    /// against `mafr` when set, else all of them together against the source resolution limit
    /// (the URL's `msr`, else the server's). The pipeline checks them against the frames the
    /// container declares, before decoding.
    func applyAnimationLimits(to request: inout ImageRequest, options: ProcessingOptions, format: ImageFormat?) {
        // No format yet: one of the preferred formats, animated only if one of them can be.
        let animates = format.map { Self.animatedFormat($0) != nil } ?? preferredFormatsAnimate
        let frames = !animates ? 1 : options.maximumAnimationFrames ?? configuration.maximumAnimationFrames
        request.maximumAnimationFrames = max(1, frames)
        guard frames > 1 else { return }
        let framePixels = options.maximumAnimationFramePixels ?? configuration.maximumAnimationFramePixels ?? 0
        request.maximumAnimationFramePixels = framePixels > 0 ? framePixels : nil
        request.maximumSourcePixelCount = options.maximumSourcePixels ?? configuration.decodingLimits.maximumSourcePixelCount
    }

    /// Every frame of `response`'s animation encoded as `format` (GIF or WebP), with the frames'
    /// display times and the source's loop count; WebP at the request's quality, lowered as for
    /// a still until `max_bytes` fits.
    func encodedAnimation(
        _ response: ImageResponse, parsed: ProcessingPath, as format: ImageFormat
    ) throws(ImagePipeline.Error) -> EncodedImage {
        let options = parsed.options
        let container = response.container
        let quality =
            options.quality ?? options.formatQualities[format] ?? configuration.formatQualities[format] ?? configuration.defaultQuality
        var percent = max(1, min(100, Int((quality * 100).rounded())))
        var data: Data
        while true {
            data = try container.encodedAnimation(
                as: format, quality: Double(percent) / 100, webpEffort: configuration.encoderSettings.webpEffort,
                webpPreset: configuration.encoderSettings.webpPreset)
            guard format == .webp, let maximumBytes = options.maximumBytes, data.count > maximumBytes,
                percent > Self.lowestFittingQuality
            else { break }
            percent = Self.nextQuality(after: percent, size: data.count, target: maximumBytes)
        }
        let size = container.pixelSize
        var image = EncodedImage(
            data: data, contentType: Self.contentType(format), etag: Self.etag(data), width: size.width, height: size.height,
            expiresAt: response.expiresAt, isStorable: response.isStorable,
            contentDisposition: ContentDisposition(options: options, source: parsed.source, format: format).headerValue)
        (image.sourceWidth, image.sourceHeight) = (container.sourcePixelSize.width, container.sourcePixelSize.height)
        image.lastModified = response.lastModified
        return image
    }
}
#endif
