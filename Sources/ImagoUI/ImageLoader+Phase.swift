import Imago

extension ImageLoader {
    /// Where an image is on its way to the screen.
    public enum Phase: Sendable {
        /// Nothing asked yet, or the load was cancelled.
        case empty
        /// Loading. `progress` is the download's, once it has started (never for disk hits);
        /// `waitingForNetwork` is true while the network is unreachable, after
        /// ``Configuration/offlineHintDelay``.
        case loading(ImageTask.Progress?, waitingForNetwork: Bool)
        /// Still loading, with a preview to show: the scans of a progressive JPEG that have arrived,
        /// processed as the request asks, at the final size (when the pipeline or the request
        /// decodes previews: `ImagePipeline.Configuration.decodesPreviews`). Each new preview
        /// replaces the last; `progress` is the download's.
        case preview(ImagePreview, ImageTask.Progress?)
        /// Shown: the image and where it came from.
        case success(ImageResponse)
        /// Failed; the error says why and what to do. Never a cancellation.
        case failure(ImageLoader.Error)

        /// The image to show now: the loaded image, or the latest preview; `nil` otherwise.
        public var image: PlatformImage? {
            switch self {
            case .success(let response): response.image
            case .preview(let preview, _): preview.image
            case .empty, .loading, .failure: nil
            }
        }
    }
}
