import Imago

/// The logic behind the UIKit and AppKit image-view helpers, kept apart from the views so it is
/// tested everywhere: it loads through an ``ImageLoader`` and hands the image to `display`.
///
/// The last request wins: ``setImage(with:placeholder:)`` stops the previous load first, and the
/// loader drops whatever that load still produces, so a reused cell never shows the previous
/// URL's image. `display` is called with the placeholder when a load starts (not on a memory
/// hit, which shows its image at once), with the image when it arrives, and never for a failure
/// or a cancellation, which leave what is shown.
@MainActor
public final class ImageViewBinding {
    /// The loader, for its ``ImageLoader/phase`` (progress, the offline hint, the error).
    public let loader: ImageLoader
    private let display: @MainActor (PlatformImage?) -> Void

    /// A binding that loads through `pipeline` and shows images with `display`.
    public init(
        pipeline: ImagePipeline = .shared, configuration: ImageLoader.Configuration = ImageLoader.Configuration(),
        display: @escaping @MainActor (PlatformImage?) -> Void
    ) {
        self.loader = ImageLoader(pipeline: pipeline, configuration: configuration)
        self.display = display
        loader.phaseDidChange = { [weak self] phase in
            if case .success(let response) = phase { self?.display(response.image) }
        }
    }

    /// Shows `placeholder`, then the image of `request`; a memory hit shows its image at once.
    /// Does nothing while `request` is already loading or shown; `nil` stops loading and shows
    /// `placeholder`.
    public func setImage(with request: ImageRequest?, placeholder: PlatformImage? = nil) {
        if let request, loader.isLoadingOrShowing(request) { return }
        loader.load(request)
        if case .success = loader.phase { return }
        display(placeholder)
    }

    /// Stops loading; the view keeps what it shows.
    public func cancel() {
        loader.cancel()
    }
}
