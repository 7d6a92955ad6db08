/// How an image view brings in an image that arrived after it appeared. Memory hits, shown
/// before the first frame, always appear at once: a fade would only make a cached image look slow.
public enum ImageTransition: Sendable, Hashable {
    /// The image replaces what is shown at once.
    case none
    /// The image fades in over what is shown, over `duration`.
    case fadeIn(duration: Duration)

    /// A fade of a quarter of a second, as Nuke and Kingfisher use.
    public static let fadeIn = ImageTransition.fadeIn(duration: .milliseconds(250))

    /// The fade's length in seconds, for UIKit, AppKit and SwiftUI animations; nil for ``none``.
    public var seconds: Double? {
        guard case .fadeIn(let duration) = self, duration > .zero else { return nil }
        let components = duration.components
        return Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
