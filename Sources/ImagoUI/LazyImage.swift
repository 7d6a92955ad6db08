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
/// ```
public struct LazyImage<Content: View>: View {
    private let request: ImageRequest?
    private let content: (ImageLoader.Phase) -> Content
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

    public var body: some View {
        content(loader.phase)
            .onAppear {
                loader.onAppear()
                loader.load(request)
            }
            .onChange(of: request?.processedKey) { loader.load(request) }
            .onDisappear { loader.onDisappear() }
    }
}

extension LazyImage {
    /// Shows `content` with the image once loaded, `placeholder` until then and on failure.
    public init<I: View, P: View>(
        url: URL?, pipeline: ImagePipeline = .shared,
        configuration: ImageLoader.Configuration = ImageLoader.Configuration(),
        @ViewBuilder content: @escaping (Image) -> I, @ViewBuilder placeholder: @escaping () -> P
    ) where Content == _ConditionalContent<I, P> {
        self.init(url: url, pipeline: pipeline, configuration: configuration) { phase in
            if case .success(let response) = phase {
                content(Image(platformImage: response.image))
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
