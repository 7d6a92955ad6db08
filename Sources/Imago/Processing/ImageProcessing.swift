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
}
