import Imago

/// The logic behind the UIKit and AppKit image-view helpers, kept apart from the views so it is
/// tested everywhere: it loads through an ``ImageLoader`` and tells the view what to show.
///
/// The last request wins: ``setImage(with:placeholder:failureImage:transition:onCompletion:)``
/// stops the previous load first, and the loader drops whatever that load still produces, so a
/// reused cell never shows the previous URL's image, and the previous call's `onCompletion` is
/// never called. The view is told:
/// - the placeholder when a load starts (not on a memory hit, which shows its image at once);
/// - each preview as it arrives (when the request decodes previews), the first with the call's
///   transition, then the image, which follows a preview at once;
/// - the image when it arrives, with the call's transition, except for a memory hit shown inside
///   the call, which appears at once;
/// - the failure image, with the transition, when the load fails and one was given; otherwise a
///   failure leaves what is shown;
/// - nothing for a cancellation.
@MainActor
public final class ImageViewBinding {
    /// What the view should show now and how.
    public struct Presentation {
        /// The image to show; `nil` clears the view.
        public let image: PlatformImage?
        /// Which image it is, for its content mode.
        public let kind: ImageContentKind
        /// How it comes in.
        public let transition: ImageTransition
        /// The loaded image with its frames (or a preview of it), for ``ImageContentKind/success``:
        /// an animated one is played by the view. `nil` for the placeholder and the failure image.
        public var container: ImageContainer? = nil
    }

    /// The loader, for its ``ImageLoader/phase`` (progress, the offline hint, the error).
    public let loader: ImageLoader
    private let present: @MainActor (Presentation) -> Void

    /// What the current ``setImage(with:placeholder:failureImage:transition:onCompletion:)`` asked for.
    private var failureImage: PlatformImage?
    private var transition = ImageTransition.none
    private var onCompletion: (@MainActor (Result<ImageResponse, ImageLoader.Error>) -> Void)?
    /// True while ``setImage(with:placeholder:failureImage:transition:onCompletion:)`` runs: a
    /// success then is a memory hit, shown without a transition.
    private var isInsideSetImage = false
    /// The preview the current load shows (its scans and bytes), if any: what follows it comes
    /// without a transition, and a progress update of the same preview presents nothing.
    private var shownPreview: (scans: Int, bytes: Int)?

    /// A binding that loads through `pipeline` and hands the view each ``Presentation``.
    public init(
        pipeline: ImagePipeline = .shared, configuration: ImageLoader.Configuration = ImageLoader.Configuration(),
        present: @escaping @MainActor (Presentation) -> Void
    ) {
        self.loader = ImageLoader(pipeline: pipeline, configuration: configuration)
        self.present = present
        loader.phaseDidChange = { [weak self] phase in self?.phaseDidChange(phase) }
    }

    /// A binding that shows images with `display`, with no transitions or content modes.
    public convenience init(
        pipeline: ImagePipeline = .shared, configuration: ImageLoader.Configuration = ImageLoader.Configuration(),
        display: @escaping @MainActor (PlatformImage?) -> Void
    ) {
        self.init(pipeline: pipeline, configuration: configuration) { display($0.image) }
    }

    /// Shows `placeholder`, then the image of `request`; a memory hit shows its image at once.
    /// Does nothing while `request` is already loading or shown; `nil` stops loading and shows
    /// `placeholder`.
    ///
    /// - Parameters:
    ///   - request: the image to load; `nil` stops loading.
    ///   - placeholder: shown until the image arrives (and after a failure without `failureImage`).
    ///   - failureImage: shown when the load fails; `nil` keeps what is shown.
    ///   - transition: how an image that arrives later comes in. Default: ``ImageTransition/none``.
    ///   - onCompletion: called once when this load succeeds or fails; never when it is
    ///     cancelled or replaced by another call.
    public func setImage(
        with request: ImageRequest?, placeholder: PlatformImage? = nil, failureImage: PlatformImage? = nil,
        transition: ImageTransition = .none,
        onCompletion: (@MainActor (Result<ImageResponse, ImageLoader.Error>) -> Void)? = nil
    ) {
        if let request, loader.isLoadingOrShowing(request) { return }
        self.failureImage = failureImage
        self.transition = transition
        self.onCompletion = onCompletion
        shownPreview = nil
        isInsideSetImage = true
        loader.load(request)
        isInsideSetImage = false
        if case .success = loader.phase { return }
        present(Presentation(image: placeholder, kind: .placeholder, transition: .none))
    }

    /// Stops loading; the view keeps what it shows, and the load's `onCompletion` is not called.
    public func cancel() {
        onCompletion = nil
        loader.cancel()
    }

    private func phaseDidChange(_ phase: ImageLoader.Phase) {
        let transition = isInsideSetImage || shownPreview != nil ? .none : self.transition
        switch phase {
        case .preview(let preview, _):
            guard shownPreview.map({ $0 != (preview.scanCount, preview.byteCount) }) ?? true else { return }
            present(Presentation(image: preview.image, kind: .success, transition: transition, container: preview.container))
            shownPreview = (preview.scanCount, preview.byteCount)
        case .success(let response):
            present(
                Presentation(image: response.image, kind: .success, transition: transition, container: response.container))
            complete(.success(response))
        case .failure(let error):
            if let failureImage {
                present(Presentation(image: failureImage, kind: .failure, transition: transition))
            }
            complete(.failure(error))
        case .empty:
            onCompletion = nil
        case .loading:
            break
        }
    }

    private func complete(_ result: Result<ImageResponse, ImageLoader.Error>) {
        let onCompletion = self.onCompletion
        self.onCompletion = nil
        onCompletion?(result)
    }
}
