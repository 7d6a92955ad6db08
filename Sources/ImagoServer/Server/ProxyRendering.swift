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

    /// The path's options in their canonical form and the output bound: everything the pixels
    /// depend on (the colour handling is the request's own).
    var identifier: String { "imago-proxy(\(options.canonical);max=\(maximumDimension))" }

    func requiredSourceScale(for sourceSize: PixelSize) -> Double {
        ProxyGeometry(source: sourceSize, options: options, maximumDimension: maximumDimension).requiredScale
    }

    func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer {
        let source = container.sourcePixelSize
        let geometry = ProxyGeometry(source: source, options: options, maximumDimension: maximumDimension)
        let renderer = ProxyRenderer(geometry: geometry, options: options)
        // Each frame of an animation (a whole composited canvas) gets the same geometry as a
        // still; the format, timings, loop count, repairs and profile are kept.
        var result = try container.mapBitmaps(processor: "proxy") { bitmap throws(ImagePipeline.Error) in
            try renderer.render(bitmap)
        }
        result.sourcePixelSize = source
        return result
    }
}
#endif
