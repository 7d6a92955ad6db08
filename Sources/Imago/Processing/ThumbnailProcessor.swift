/// Scales an image down so its longer side is at most ``maximumPixelSize``, keeping its aspect
/// ratio; a smaller image passes through unchanged, never enlarged.
///
/// This is what ``ImageRequest/maximumPixelSize`` applies, after the decoder has shrunk the image
/// on load (package access: requests ask for a thumbnail with `maximumPixelSize`). Resampling is Lanczos-3 in
/// premultiplied alpha, as in ``ImageProcessors/Resize``; a reduction of 4x or more first averages
/// integer blocks (`BoxReducer`) down to no less than twice the size, as Pillow's `thumbnail()`
/// does, so its cost is set by the source once and by the small image after.
package struct ThumbnailProcessor: BitmapProcessing, GainMapTransforming, Hashable {
    /// The longest side the result may have, in pixels.
    public let maximumPixelSize: Int

    /// A processor that shrinks images to at most `maximumPixelSize` on their longer side.
    ///
    /// A size below 1 is refused when processing, with ``ImagePipeline/Error/processingFailed(_:processor:reason:)``.
    public init(maximumPixelSize: Int) {
        self.maximumPixelSize = maximumPixelSize
    }

    /// `thumbnail(256)`: the same text ``ImageRequest/processedKey`` uses for a thumbnail.
    public var identifier: String { "thumbnail(\(maximumPixelSize))" }

    /// The container's thumbnail; a container that already fits passes through untouched, with no
    /// pixel read: on Apple platforms ImageIO has usually made the thumbnail while decoding, and
    /// drawing it into RGBA and back would only cost time and memory.
    public func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer {
        if fits(container.pixelSize) {
            try checkSize()
            return container
        }
        return try container.mapBitmaps(processor: identifier, gainMap: self) { bitmap throws(ImagePipeline.Error) in
            try process(bitmap)
        }
    }

    /// The thumbnail of `bitmap`, in its alpha mode.
    /// - Throws: ``ImagePipeline/Error/processingFailed(_:processor:reason:)`` when
    ///   ``maximumPixelSize`` is below 1 or the bitmap is empty.
    public func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
        try checkSize()
        let factor = BoxReducer.factor(width: bitmap.width, height: bitmap.height, target: maximumPixelSize)
        guard factor > 1 else { return try fit.resize(bitmap, reportingAs: identifier) }
        // A large reduction in two steps, as libvips and Pillow (`reducing_gap`) do: an integer
        // box reduction to no less than twice the size, then Lanczos-3 from the exact part of the
        // reduced image that stands for the source.
        let size = outputSize(for: PixelSize(width: bitmap.width, height: bitmap.height))
        let reduced = BoxReducer.reduce(bitmap, factor: factor)
        let region = Resampler.Region(
            x: 0, y: 0, width: Double(bitmap.width) / Double(factor), height: Double(bitmap.height) / Double(factor))
        return Resampler.resample(reduced, region: region, to: size)
    }

    /// Whether an image of `imageSize` is already its own thumbnail: its longer side is at most
    /// ``maximumPixelSize``, so processing would hand back the same pixels.
    public func fits(_ imageSize: PixelSize) -> Bool {
        imageSize.width >= 1 && imageSize.height >= 1 && outputSize(for: imageSize) == imageSize
    }

    private func checkSize() throws(ImagePipeline.Error) {
        guard maximumPixelSize >= 1 else {
            throw .processingFailed(
                nil, processor: identifier,
                reason: "the maximum pixel size \(maximumPixelSize) is too small; it must be at least 1 pixel")
        }
    }

    /// The size an image of `imageSize` comes out at.
    public func outputSize(for imageSize: PixelSize) -> PixelSize {
        fit.outputSize(for: imageSize)
    }

    /// The gain map shrunk as a fit of the base would be: to the same share of its own size.
    package func transformedGainMap(_ map: GainMap, source: PixelSize, result: PixelSize) -> GainMap? {
        fit.transformedGainMap(map, source: source, result: result)
    }

    /// A thumbnail is a fit into a square of the maximum size, without enlarging.
    private var fit: ImageProcessors.Resize {
        ImageProcessors.Resize(
            size: PixelSize(width: maximumPixelSize, height: maximumPixelSize), contentMode: .aspectFit)
    }
}
