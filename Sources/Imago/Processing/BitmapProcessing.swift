/// A processor that transforms one bitmap at a time: the container's image and, for an animation,
/// every frame go through the bitmap `process(_:)` and keep their timing.
///
/// Conform to this rather than to ``ImageProcessing`` directly when the work is per-pixel: the
/// container-level ``ImageProcessing/process(_:)`` comes from the extension below, so a custom
/// processor writes only its bitmap transform and its ``ImageProcessing/identifier``.
public protocol BitmapProcessing: ImageProcessing {
    /// The transformed bitmap.
    /// - Throws: ``ImagePipeline/Error/processingFailed(_:processor:reason:)``.
    func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap
}

extension BitmapProcessing {
    /// The container with its image and every animation frame transformed by the bitmap
    /// `process(_:)`. Its gain map (``ImageContainer/gainMap``) is kept only by the processors
    /// that say what their geometry does to it (Imago's resize, crop, rotate, padding, blur,
    /// sharpen and rounded corners); any other processor, a custom one too, drops it.
    public func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer {
        try container.mapBitmaps(processor: identifier, gainMap: self as? any GainMapTransforming) { bitmap throws(ImagePipeline.Error) in
            try process(bitmap)
        }
    }
}
