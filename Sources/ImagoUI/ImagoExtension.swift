/// Imago's additions to a platform type, reached through its `imago` property
/// (`imageView.imago.setImage(with: url)`), so they never collide with the type's own methods.
public struct ImagoExtension<Base> {
    /// The extended value.
    public let base: Base

    /// Wraps `base`.
    public init(_ base: Base) { self.base = base }
}
