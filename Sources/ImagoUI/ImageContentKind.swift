/// What an image view shows: the placeholder, the loaded image, or the failure image. Views pick
/// a content mode and decide on a transition by it.
public enum ImageContentKind: Sendable, Hashable {
    /// Nothing loaded yet, loading, or cancelled.
    case placeholder
    /// The loaded image.
    case success
    /// The load failed.
    case failure

    /// The kind a loader's `phase` shows: a preview shows as the image it stands for.
    public init(_ phase: ImageLoader.Phase) {
        switch phase {
        case .empty, .loading: self = .placeholder
        case .success, .preview: self = .success
        case .failure: self = .failure
        }
    }
}

/// One value per ``ImageContentKind``: the content mode of each (`UIView.ContentMode`,
/// `NSImageScaling`), as Nuke's `ImageLoadingOptions.ContentModes` does, so a small placeholder
/// symbol can be centred while the image fills the view.
public struct ImageContentModes<Mode> {
    /// For the loaded image.
    public var success: Mode
    /// For the placeholder.
    public var placeholder: Mode
    /// For the failure image.
    public var failure: Mode

    /// One mode for each kind.
    public init(success: Mode, placeholder: Mode, failure: Mode) {
        self.success = success
        self.placeholder = placeholder
        self.failure = failure
    }

    /// The mode for `kind`.
    public subscript(kind: ImageContentKind) -> Mode {
        switch kind {
        case .success: success
        case .placeholder: placeholder
        case .failure: failure
        }
    }
}

extension ImageContentModes: Sendable where Mode: Sendable {}
