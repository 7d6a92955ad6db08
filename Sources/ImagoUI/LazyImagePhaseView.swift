#if canImport(SwiftUI)
import Imago
import SwiftUI

/// What a plain `LazyImage(url:)` draws: a tinted placeholder while loading, a failure symbol on
/// error, and the resizable image (played frame by frame when it is animated), its previews first
/// when the pipeline decodes them.
public struct LazyImagePhaseView: View {
    let phase: ImageLoader.Phase

    /// The default content for the phase: a placeholder, the image, or a failure symbol.
    public var body: some View {
        switch phase {
        case .success(let response) where response.container.isAnimated:
            AnimatedImage(response.container)
        case .success(let response):
            Image(platformImage: response.image).resizable()
        case .preview(let preview, _):
            Image(platformImage: preview.image).resizable()
        case .failure:
            Image(systemName: "exclamationmark.triangle").foregroundStyle(.secondary)
        case .empty, .loading:
            Rectangle().fill(.quaternary)
        }
    }
}
#endif
