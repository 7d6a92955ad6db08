#if canImport(SwiftUI)
import Imago
import SwiftUI

/// An image loaded from a URL: shows `content` for each ``ImageLoader/Phase``. Loads when it
/// appears, cancels (or lowers) the load when it disappears, and follows a changed URL; every
/// decision is its ``ImageLoader``'s.
///
/// ```swift
/// LazyImage(url: url)                                   // placeholder, image, or failure symbol
/// LazyImage(url: url) { image in image.resizable() } placeholder: { ProgressView() }
/// LazyImage(url: url) { phase in … }                    // every phase, yours to draw
/// LazyImage(url: url)
///     .processors([ImageProcessors.RoundedCorners(radius: 8)])
///     .priority(.high)
///     .transition(.fadeIn)
///     .onCompletion { result in … }
/// ```
public struct LazyImage<Content: View>: View {
    private var request: ImageRequest?
    private let content: (ImageLoader.Phase) -> Content
    private var transition = ImageTransition.none
    private var onCompletion: (@MainActor (Result<ImageResponse, ImageLoader.Error>) -> Void)?
    @State private var loader: ImageLoader

    /// Draws each phase of loading `request` with `content`.
    public init(
        request: ImageRequest?, pipeline: ImagePipeline = .shared,
        configuration: ImageLoader.Configuration = ImageLoader.Configuration(),
        @ViewBuilder content: @escaping (ImageLoader.Phase) -> Content
    ) {
        self.request = request
        self.content = content
        _loader = State(initialValue: ImageLoader(pipeline: pipeline, configuration: configuration))
    }

    /// Draws each phase of loading `url` with `content`.
    public init(
        url: URL?, pipeline: ImagePipeline = .shared,
        configuration: ImageLoader.Configuration = ImageLoader.Configuration(),
        @ViewBuilder content: @escaping (ImageLoader.Phase) -> Content
    ) {
        self.init(
            request: url.map { ImageRequest(url: $0) }, pipeline: pipeline, configuration: configuration,
            content: content)
    }

    /// The content for the loader's current phase.
    public var body: some View {
        content(loader.phase)
            // The kind changes once per load; a memory hit is already `.success` on the first frame,
            // so it never animates.
            .animation(transition.seconds.map { .easeIn(duration: $0) }, value: ImageContentKind(loader.phase))
            .onAppear {
                loader.onCompletion = onCompletion
                loader.onAppear()
                loader.load(request)
            }
            .onChange(of: request?.processedKey) { loader.load(request) }
            .onDisappear { loader.onDisappear() }
    }
}

extension LazyImage {
    /// Brings in an image that arrives after the view appeared with `transition` (say
    /// ``ImageTransition/fadeIn``); a memory hit appears at once. Default: ``ImageTransition/none``.
    public func transition(_ transition: ImageTransition) -> LazyImage {
        var copy = self
        copy.transition = transition
        return copy
    }

    /// Applies `processors` to the image, after any thumbnail, and caches the result under its
    /// own key.
    public func processors(_ processors: [any ImageProcessing]) -> LazyImage {
        var copy = self
        copy.request?.processors = processors
        return copy
    }

    /// Loads at `priority` (raised to ``ImageLoader/Configuration/visiblePriority`` while on
    /// screen). Default: the request's, `.normal`.
    public func priority(_ priority: ImageRequest.Priority) -> LazyImage {
        var copy = self
        copy.request?.priority = priority
        return copy
    }

    /// Calls `action` once each load succeeds (memory hits included) or fails; never for a
    /// cancelled load.
    public func onCompletion(
        _ action: @escaping @MainActor (Result<ImageResponse, ImageLoader.Error>) -> Void
    ) -> LazyImage {
        var copy = self
        copy.onCompletion = action
        return copy
    }
}

extension LazyImage {
    /// Shows `content` with the image once loaded (and with its previews before, when the pipeline
    /// decodes them), `placeholder` until then and on failure.
    public init<I: View, P: View>(
        url: URL?, pipeline: ImagePipeline = .shared,
        configuration: ImageLoader.Configuration = ImageLoader.Configuration(),
        @ViewBuilder content: @escaping (Image) -> I, @ViewBuilder placeholder: @escaping () -> P
    ) where Content == _ConditionalContent<I, P> {
        self.init(url: url, pipeline: pipeline, configuration: configuration) { phase in
            if let image = phase.image {
                content(Image(platformImage: image))
            } else {
                placeholder()
            }
        }
    }
}

extension LazyImage where Content == LazyImagePhaseView {
    /// Shows a placeholder while loading, a failure symbol on error, and the resizable image.
    public init(
        url: URL?, pipeline: ImagePipeline = .shared,
        configuration: ImageLoader.Configuration = ImageLoader.Configuration()
    ) {
        self.init(url: url, pipeline: pipeline, configuration: configuration) { LazyImagePhaseView(phase: $0) }
    }
}
#endif
