#if canImport(UIKit) && !os(watchOS)
import UIKit

/// The image view of this platform: `UIImageView` here.
public typealias PlatformImageView = UIImageView
#elseif canImport(AppKit) && !targetEnvironment(macCatalyst)
import AppKit

/// The image view of this platform: `NSImageView` here.
public typealias PlatformImageView = NSImageView
#endif

#if (canImport(UIKit) && !os(watchOS)) || (canImport(AppKit) && !targetEnvironment(macCatalyst))
import Imago
import ObjectiveC

extension PlatformImageView {
    /// Imago's image loading for this view: `imageView.imago.setImage(with: url)`.
    public var imago: ImagoExtension<PlatformImageView> { ImagoExtension(self) }
}

@MainActor
extension ImagoExtension where Base: PlatformImageView {
    /// Shows `placeholder`, then the image at `url`; the last call wins, so a reused cell never
    /// shows the previous URL's image. Loads through ``Imago/ImagePipeline/shared``.
    public func setImage(with url: URL?, placeholder: PlatformImage? = nil) {
        setImage(with: url.map { ImageRequest(url: $0) }, placeholder: placeholder)
    }

    /// Shows `placeholder`, then the image of `request`; the last call wins.
    public func setImage(with request: ImageRequest?, placeholder: PlatformImage? = nil) {
        binding.setImage(with: request, placeholder: placeholder)
    }

    /// Stops loading; the view keeps what it shows.
    public func cancel() {
        binding.cancel()
    }

    /// The view's binding, kept as an associated object and made on first use.
    private var binding: ImageViewBinding {
        if let binding = objc_getAssociatedObject(base, &BindingKey.key) as? ImageViewBinding {
            return binding
        }
        let binding = ImageViewBinding { [weak base] image in base?.image = image }
        objc_setAssociatedObject(base, &BindingKey.key, binding, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return binding
    }
}

/// The address that names the binding among the view's associated objects.
@MainActor
private enum BindingKey {
    static var key: UInt8 = 0
}
#endif
