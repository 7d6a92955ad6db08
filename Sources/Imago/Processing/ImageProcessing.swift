/// Transforms a decoded image: thumbnail, resize, crop, rounded corners…
///
/// The ``identifier`` becomes part of the cache key, so two processors that produce different
/// pixels must have different identifiers, and equal identifiers must mean equal output.
public protocol ImageProcessing: Sendable {
    /// A stable string naming the processor and every parameter, e.g. `resize(256x256,fit)`.
    var identifier: String { get }

    /// Produces the processed image.
    /// - Throws: ``ImagePipeline/Error/processingFailed(_:processor:reason:)``.
    func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer

    /// The share of the source's resolution this processor needs (see the default below).
    func requiredSourceScale(for sourceSize: PixelSize) -> Double
}

extension ImageProcessing {
    /// The share of the source's resolution this processor needs, across and down, given the
    /// source's full size (after its EXIF orientation): 1 is every pixel, 0.25 a quarter of each
    /// side. When it comes first among a request's ``ImageRequest/processors`` (and the request has
    /// no ``ImageRequest/maximumPixelSize``), the pipeline decodes the source at the largest
    /// reduction (1/8, 1/4, 1/2) whose pixels still cover it, and keeps that decode in its tier of
    /// decoded originals (``ImagePipeline/Configuration/decodedOriginalsBytes``) for the source's
    /// other variants. The processor then gets the reduced pixels, with the full size in
    /// ``ImageContainer/sourcePixelSize``.
    ///
    /// Default: 1, full resolution: a processor that says nothing always gets every pixel.
    public func requiredSourceScale(for sourceSize: PixelSize) -> Double { 1 }
}
