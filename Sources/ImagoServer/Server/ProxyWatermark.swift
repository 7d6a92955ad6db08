#if os(Linux)
import Imago

/// A path's `watermark` with the image it lays: sized and placed on a rendered result as imgproxy
/// does, then composited by ``ImageProcessors/Watermark``.
///
/// imgproxy's steps: with a scale, the watermark is fitted (enlarged if need be) into the
/// result's width and height times the scale (each rounded half to even; at most twice the
/// result's size); for `re`, the offsets become the space between copies (half before each, the
/// rest after) and it is tiled from the centre; otherwise it is placed as a gravity places an image, offsets in pixels
/// times the ratio (or shares of the result below 1), and it may hang over the edges, at
/// least one pixel of it on the result.
struct ProxyWatermark: Hashable {
    var image: Bitmap
    /// Names ``image`` in cache keys.
    var imageIdentifier: String
    var options: ProcessingOptions.Watermark
    /// The server's `IMGPROXY_WATERMARK_OPACITY`, multiplied by the path's.
    var baseOpacity: Double = 1

    /// What the pipeline's cache key says of it (the options are in the path's canonical text).
    var identifier: String { "\(imageIdentifier)@\(baseOpacity)" }

    /// `canvas` with the watermark over it; `offsetScale` is the ratio absolute offsets are
    /// multiplied by (``ProxyGeometry/offsetScale``).
    func apply(to canvas: Bitmap, offsetScale: Double) throws(ImagePipeline.Error) -> Bitmap {
        let opacity = options.opacity * baseOpacity
        guard opacity > 0, image.width > 0, image.height > 0, canvas.width > 0, canvas.height > 0 else { return canvas }
        var mark = image
        if options.scale > 0 {
            // Past twice the result's size a mark is mostly off the result: it is not drawn larger
            // (imgproxy would resample it to the full size, up to 100 times the result's).
            let box = (
                width: min(2 * canvas.width, max(1, Self.scaled(canvas.width, options.scale))),
                height: min(2 * canvas.height, max(1, Self.scaled(canvas.height, options.scale)))
            )
            let scale = min(Double(box.width) / Double(mark.width), Double(box.height) / Double(mark.height))
            let size = PixelSize(
                width: max(1, min(box.width, Int((Double(mark.width) * scale).rounded()))),
                height: max(1, min(box.height, Int((Double(mark.height) * scale).rounded()))))
            if size != PixelSize(width: mark.width, height: mark.height) { mark = Resampler.resample(mark, to: size) }
        }
        let placement: ImageProcessors.Watermark.Placement
        if options.position == .replicate {
            placement = .tiled(
                spacingX: Self.offset(options.x, of: canvas.width, scale: offsetScale),
                spacingY: Self.offset(options.y, of: canvas.height, scale: offsetScale))
        } else {
            let origin = Self.position(of: PixelSize(width: mark.width, height: mark.height), on: canvas, offsetScale: offsetScale, options)
            placement = .at(x: origin.x, y: origin.y)
        }
        return try ImageProcessors.Watermark(image: mark, opacity: opacity, placement: placement, imageIdentifier: imageIdentifier)
            .process(canvas)
    }

    /// Where the watermark's top-left pixel goes (imgproxy's placement with overflow allowed:
    /// at least one pixel of it stays on the canvas).
    static func position(
        of mark: PixelSize, on canvas: Bitmap, offsetScale: Double, _ options: ProcessingOptions.Watermark
    ) -> (x: Int, y: Int) {
        let offsetX = offset(options.x, of: canvas.width, scale: offsetScale)
        let offsetY = offset(options.y, of: canvas.height, scale: offsetScale)
        var left = Int((Double(canvas.width - mark.width + 1) / 2).rounded(.toNearestOrEven)) + offsetX
        var top = Int((Double(canvas.height - mark.height + 1) / 2).rounded(.toNearestOrEven)) + offsetY
        switch options.position {
        case .north, .northEast, .northWest: top = offsetY
        case .south, .southEast, .southWest: top = canvas.height - mark.height - offsetY
        default: break
        }
        switch options.position {
        case .east, .northEast, .southEast: left = canvas.width - mark.width - offsetX
        case .west, .northWest, .southWest: left = offsetX
        default: break
        }
        return (min(max(left, 1 - mark.width), canvas.width - 1), min(max(top, 1 - mark.height), canvas.height - 1))
    }

    /// `value` pixels times `scale` from a magnitude of 1, else a share of `length` (half to even).
    /// Offsets are bounded by the parser (±100,000), the scale by the ratio (≤ 8).
    static func offset(_ value: Double, of length: Int, scale: Double) -> Int {
        abs(value) >= 1 ? Int((value * scale).rounded(.toNearestOrEven)) : scaled(length, value)
    }

    /// `length` times `factor`, rounded half to even (imgproxy's `ScaleToEven`), within ±10^9.
    static func scaled(_ length: Int, _ factor: Double) -> Int {
        Int(min(max(Double(length) * factor, -1e9), 1e9).rounded(.toNearestOrEven))
    }
}
#endif
