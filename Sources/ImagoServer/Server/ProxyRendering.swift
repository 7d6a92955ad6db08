#if os(Linux)
import Imago

/// The proxy's rendering as the processor of a pipeline request: the geometry of a path's options
/// for the source's full size (``ImageContainer/sourcePixelSize``), rendered by ``ProxyRenderer``
/// from whatever reduced pixels the pipeline hands over. It tells the pipeline how much of the
/// source it needs (``ProxyGeometry/requiredScale``), so the source is decoded, and kept in the
/// pipeline's tier of decoded originals, at the largest reduction that still covers it. Every
/// frame of an animation is rendered alike.
struct ProxyRendering: ImageProcessing {
    var options: ProcessingOptions
    var maximumDimension: Int
    /// The path's watermark with its image, when it has one and the server or the path names an
    /// image. Default: `nil`.
    var watermark: ProxyWatermark? = nil
    /// Whether the resize runs in linear light (``ImageProxyConfiguration/usesLinearLight``).
    /// Default: `false`.
    var linearLight = false
    /// Whether the source may be decoded at a reduced scale (JPEG's DCT scaling, a reduction in
    /// the decoded tier); `false`: always at full size (imgproxy's
    /// `IMGPROXY_DISABLE_SHRINK_ON_LOAD`, ``ImageProxyConfiguration/shrinksOnLoad``). Default: `true`.
    var shrinksOnLoad = true

    /// The path's options in their canonical form, the output bound, the watermark's image,
    /// linear light and a full-size decode: everything the pixels depend on (the colour handling
    /// is the request's own).
    var identifier: String {
        let mark = watermark.map { ";wm=\($0.identifier)" } ?? ""
        return "imago-proxy(\(options.canonical);max=\(maximumDimension)\(mark)\(linearLight ? ";linear" : "")\(shrinksOnLoad ? "" : ";full"))"
    }

    func requiredSourceScale(for sourceSize: PixelSize) -> Double {
        guard shrinksOnLoad else { return 1 }
        return ProxyGeometry(source: sourceSize, options: options, maximumDimension: maximumDimension).requiredScale
    }

    func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer {
        let source = container.sourcePixelSize
        let (input, size) = try Self.trimmed(container, options: options)
        let geometry = ProxyGeometry(source: size, options: options, maximumDimension: maximumDimension)
        var renderer = ProxyRenderer(geometry: geometry, options: options)
        renderer.watermark = watermark
        // Linear light undoes sRGB's curve: pixels kept in a profile with another one (`scp:0`
        // with Adobe RGB, ProPhoto…) are resampled on their stored values.
        renderer.linearLight = linearLight && input.pixelsHaveSRGBTransfer
        // Pixels that keep the source's profile (`scp:0`): what is drawn in sRGB (the background
        // of extension and padding, the watermark) is converted into that profile first, as
        // imgproxy composites in sRGB and converts the result back.
        if let profile = input.pixelColorProfile {
            renderer.background = renderer.background.map { profile.converting(fromSRGB: $0) ?? $0 }
            if let mark = renderer.watermark, let converted = profile.converting(fromSRGB: mark.image) {
                renderer.watermark?.image = converted
            }
        }
        // Each frame of an animation (a whole composited canvas) gets the same geometry as a
        // still; the format, timings, loop count, repairs and profile are kept.
        var result = try input.mapBitmaps(processor: "proxy") { bitmap throws(ImagePipeline.Error) in
            try renderer.render(bitmap)
        }
        result.gainMap = try Self.renderedGainMap(of: input, by: renderer, result: result.pixelSize, options: options)
        result.sourcePixelSize = source
        return result
    }

    /// The gain map of `input` given the geometry `renderer` gave its base, at the map's own share
    /// of the base's size; `nil` without a map, when `gm:0` drops it, or when the geometry cannot
    /// be repeated on the map: a trim or a smart crop (found in the base's pixels, not the map's).
    /// Extension, padding and what the watermark covers show no gain (``GainMap/neutralValue``):
    /// the watermark is laid over the map too, in its shape and opacity but in the value of no
    /// gain (``GainMap/neutralCover(of:)``), so an HDR display does not brighten the mark by the
    /// light of the photograph under it.
    static func renderedGainMap(
        of input: ImageContainer, by renderer: ProxyRenderer, result: PixelSize, options: ProcessingOptions
    ) throws(ImagePipeline.Error) -> GainMap? {
        guard let map = input.gainMap, options.keepsGainMap, options.trim == nil, !input.isAnimated,
            !renderer.geometry.cropIsSmart, !renderer.geometry.resultCropIsSmart, input.pixelSize.width > 0,
            input.pixelSize.height > 0
        else { return nil }
        var mapRenderer = renderer
        mapRenderer.linearLight = false  // a map's values are log gains, not light
        if let mark = renderer.watermark?.image { mapRenderer.watermark?.image = map.neutralCover(of: mark) }
        mapRenderer.background = map.neutralValue
        // Drawn at the output's size, then shrunk to the map's share of it (at least a pixel).
        let drawn = try mapRenderer.render(map.bitmap)
        let share = min(
            Double(map.bitmap.width) / Double(input.pixelSize.width), Double(map.bitmap.height) / Double(input.pixelSize.height), 1)
        let size = PixelSize(
            width: max(1, Int((Double(result.width) * share).rounded())), height: max(1, Int((Double(result.height) * share).rounded())))
        let bitmap = size == PixelSize(width: drawn.width, height: drawn.height) ? drawn : Resampler.resample(drawn, to: size)
        return GainMap(bitmap: bitmap, metadata: map.metadata)
    }

    /// `container` with its border trimmed when the options ask (imgproxy's `trim`, first of all
    /// geometry), and the full-resolution size the geometry is then computed for. An animation
    /// is not trimmed, as imgproxy does not trim one.
    static func trimmed(_ container: ImageContainer, options: ProcessingOptions) throws(ImagePipeline.Error) -> (ImageContainer, PixelSize) {
        let source = container.sourcePixelSize
        guard let trim = options.trim, !container.isAnimated else { return (container, source) }
        let bitmap = try container.bitmap()
        guard bitmap.width > 0, bitmap.height > 0, let box = trim.bounds(in: bitmap) else { return (container, source) }
        let cropped = try ImageProcessors.Crop(x: box.x, y: box.y, width: box.width, height: box.height).process(bitmap)
        var result = container
        result.image = try ImageContainer(bitmap: cropped, format: container.format).image
        if result.frames.count == 1 { result.frames[0].image = result.image }
        // The pixels are the whole source (``ProxyGeometry/needsWholeSource``); should they be
        // reduced all the same, the trimmed size is scaled back to the source's resolution.
        let size = PixelSize(
            width: max(1, Int((Double(box.width) * Double(source.width) / Double(bitmap.width)).rounded())),
            height: max(1, Int((Double(box.height) * Double(source.height) / Double(bitmap.height)).rounded())))
        return (result, size)
    }
}
#endif
