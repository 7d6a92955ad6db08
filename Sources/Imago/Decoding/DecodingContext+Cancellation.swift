import Foundation

extension DecodingContext {
    /// Throws ``ImagePipeline/Error/cancelled(_:)`` when the current task is cancelled; decoders
    /// call it between frames so that a cancelled load stops decoding a long animation.
    ///
    /// The error carries ``url``, or `file:///` when the context has none.
    func checkCancellation() throws(ImagePipeline.Error) {
        if Task.isCancelled { throw .cancelled(url ?? URL(fileURLWithPath: "/")) }
    }
}
