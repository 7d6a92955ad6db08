#if os(Linux)
import Foundation
import Imago

extension ImageProxy {
    /// The lowest quality `max_bytes` goes down to, in hundredths (imgproxy's 10).
    static let lowestFittingQuality = 10

    /// `bitmap` encoded as `format` at `quality` (0...1), with `profile` embedded when the pixels
    /// kept one and, for JPEG, `gainMap` attached (an Ultra HDR / ISO 21496-1 gain-map JPEG,
    /// ``GainMapJPEGWriter``); with `maximumBytes`, a lossy format (JPEG, WebP, AVIF, JPEG XL) is
    /// encoded again at lower qualities until it fits or a try was at quality 10 or lower (imgproxy's `max_bytes`; that
    /// try is answered even if it is still larger). PNG and GIF have no quality to lower: they are
    /// written once. `settings` say how each format is written beyond quality. `metadata` is
    /// written into JPEG, PNG and WebP (``MetadataEmbedder``), without its XMP beside a gain map
    /// (whose `hdrgm` packet must be the file's XMP).
    static func encode(
        _ bitmap: Bitmap, as format: ImageFormat, quality: Double, profile: ColorProfile?, gainMap: GainMap? = nil,
        metadata: ImageMetadata? = nil, maximumBytes: Int?, settings: ProxyEncoderSettings = ProxyEncoderSettings()
    ) throws(ImagePipeline.Error) -> Data {
        var percent = max(1, min(100, Int((quality * 100).rounded())))
        var metadata = metadata
        if gainMap != nil, format == .jpeg { metadata?.xmp = nil }
        while true {
            var data = try encode(bitmap, as: format, quality: Double(percent) / 100, profile: profile, settings: settings)
            if let metadata { data = try MetadataEmbedder.embed(metadata, in: data, format: format) }
            if format == .jpeg, let gainMap {
                data = try GainMapJPEGWriter.write(gainMap, base: data, quality: Double(percent) / 100)
            }
            guard let maximumBytes, data.count > maximumBytes, format != .png, format != .gif, percent > lowestFittingQuality else {
                return data
            }
            percent = nextQuality(after: percent, size: data.count, target: maximumBytes)
        }
    }

    /// The next quality to try after `quality` gave `size` bytes against `target`: a step as large
    /// as the overshoot (a quarter, a half or three quarters of the quality, as imgproxy steps),
    /// always at least 1 lower and never below 1.
    static func nextQuality(after quality: Int, size: Int, target: Int) -> Int {
        let overshoot = Double(size) / Double(max(target, 1))
        let factor = overshoot > 3 ? 0.25 : overshoot > 1.5 ? 0.5 : 0.75
        let scaled = Int((Double(quality) * factor).rounded())
        return max(1, min(quality - 1, scaled))
    }

    /// One encoding of `bitmap` as `format` at `quality`, written as `settings` say.
    static func encode(
        _ bitmap: Bitmap, as format: ImageFormat, quality: Double, profile: ColorProfile?,
        settings: ProxyEncoderSettings = ProxyEncoderSettings()
    ) throws(ImagePipeline.Error) -> Data {
        var data: Data
        switch format {
        case .jpeg:
            data = try JPEGEncoder(quality: quality, progressive: settings.jpegProgressive).encode(bitmap)
        case .png:
            data = try PNGEncoder(isInterlaced: settings.pngInterlaced, paletteColors: settings.pngQuantizationColors).encode(bitmap)
        case .webp:
            data = try WebPEncoder(
                quality: quality, isLossless: quality == 1, effort: settings.webpEffort,
                preset: settings.webpPreset
            ).encode(bitmap)
        case .gif:
            return try GIFEncoder().encode(bitmap)  // a palette of sRGB colours: no profile
        case .avif:
            data = try AVIFEncoder(quality: quality, speed: settings.avifSpeed, colorProfile: profile).encode(bitmap)  // the profile inside
        case .jxl:
            data = try JXLEncoder(quality: quality, effort: settings.jxlEffort, colorProfile: profile).encode(bitmap)  // the profile inside
        default:
            data = try ImageContainer(bitmap: bitmap, format: format).encoded(as: format, quality: quality)
        }
        if let profile, format != .avif, format != .jxl { data = try profile.embedded(in: data, format: format) }
        return data
    }
}
#endif
