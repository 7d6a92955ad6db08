import Imago

extension ImageLoader {
    /// Where an image is on its way to the screen.
    public enum Phase: Sendable {
        /// Nothing asked yet, or the load was cancelled.
        case empty
        /// Loading. `progress` is the download's, once it has started (never for disk hits);
        /// `waitingForNetwork` is true while the network is unreachable, after
        /// ``Configuration/offlineHintDelay``.
        case loading(DownloadProgress?, waitingForNetwork: Bool)
        /// Shown: the image and where it came from.
        case success(ImageResponse)
        /// Failed; the error says why and what to do. Never a cancellation.
        case failure(ImageLoader.Error)
    }
}
