#if canImport(UIKit) && !os(watchOS)
import UIKit

/// The image view of this platform: `UIImageView` here.
public typealias PlatformImageView = UIImageView
/// How the image view fits its image: `UIView.ContentMode` here.
public typealias PlatformContentMode = UIView.ContentMode
#elseif os(macOS)
import AppKit
import QuartzCore

/// The image view of this platform: `NSImageView` here.
public typealias PlatformImageView = NSImageView
/// How the image view fits its image: `NSImageScaling` here.
public typealias PlatformContentMode = NSImageScaling
#endif

#if (canImport(UIKit) && !os(watchOS)) || os(macOS)
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
    /// The options are those of ``setImage(with:placeholder:failureImage:transition:contentModes:onCompletion:)``.
    public func setImage(
        with url: URL?, placeholder: PlatformImage? = nil, failureImage: PlatformImage? = nil,
        transition: ImageTransition = .none, contentModes: ImageContentModes<PlatformContentMode>? = nil,
        onCompletion: (@MainActor (Result<ImageResponse, ImageLoader.Error>) -> Void)? = nil
    ) {
        setImage(
            with: url.map { ImageRequest(url: $0) }, placeholder: placeholder, failureImage: failureImage,
            transition: transition, contentModes: contentModes, onCompletion: onCompletion)
    }

    /// Shows `placeholder`, then the image of `request` (its processors and priority applied);
    /// the last call wins.
    ///
    /// - Parameters:
    ///   - failureImage: shown if the load fails; `nil` keeps the placeholder.
    ///   - transition: how an image that arrives later comes in (a memory hit appears at once),
    ///     say ``ImageTransition/fadeIn``. Default: ``ImageTransition/none``.
    ///   - contentModes: the view's content mode for the image, the placeholder and the failure
    ///     image; `nil` leaves the view's own.
    ///   - onCompletion: called once when the load succeeds or fails, never when it is cancelled
    ///     or replaced by another call.
    public func setImage(
        with request: ImageRequest?, placeholder: PlatformImage? = nil, failureImage: PlatformImage? = nil,
        transition: ImageTransition = .none, contentModes: ImageContentModes<PlatformContentMode>? = nil,
        onCompletion: (@MainActor (Result<ImageResponse, ImageLoader.Error>) -> Void)? = nil
    ) {
        let binding = self.binding
        binding.contentModes = contentModes
        binding.value.setImage(
            with: request, placeholder: placeholder, failureImage: failureImage, transition: transition,
            onCompletion: onCompletion)
    }

    /// Stops loading; the view keeps what it shows.
    public func cancel() {
        binding.value.cancel()
    }

    /// The view's binding, kept as an associated object and made on first use.
    private var binding: ViewBinding {
        if let binding = objc_getAssociatedObject(base, &BindingKey.key) as? ViewBinding {
            return binding
        }
        let binding = ViewBinding(view: base)
        objc_setAssociatedObject(base, &BindingKey.key, binding, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return binding
    }
}

/// One view's ``ImageViewBinding`` and the content modes of its current call: it applies each
/// presentation to the view, and decides nothing.
@MainActor
private final class ViewBinding {
    var contentModes: ImageContentModes<PlatformContentMode>?
    private(set) var value: ImageViewBinding!

    /// Plays animated images (GIF, WebP, APNG) frame by frame once shown.
    private let animation: AnimatedImageController

    init(view: PlatformImageView) {
        animation = AnimatedImageController(view: view)
        value = ImageViewBinding { [weak self, weak view] presentation in
            guard let self, let view else { return }
            animation.stop()
            if let mode = contentModes?[presentation.kind] { Self.setContentMode(mode, of: view) }
            Self.show(presentation.image, in: view, fadingOver: presentation.transition.seconds)
            if let container = presentation.container, container.isAnimated { animation.play(container) }
        }
    }

    private static func setContentMode(_ mode: PlatformContentMode, of view: PlatformImageView) {
        #if canImport(UIKit)
        view.contentMode = mode
        #else
        view.imageScaling = mode
        #endif
    }

    private static func show(_ image: PlatformImage?, in view: PlatformImageView, fadingOver seconds: Double?) {
        guard let seconds else {
            view.image = image
            return
        }
        #if canImport(UIKit)
        UIView.transition(
            with: view, duration: seconds, options: [.transitionCrossDissolve, .allowUserInteraction],
            animations: { view.image = image })
        #else
        view.wantsLayer = true
        let fade = CATransition()
        fade.type = .fade
        fade.duration = seconds
        view.layer?.add(fade, forKey: "imago.fade")
        view.image = image
        #endif
    }
}

/// The address that names the binding among the view's associated objects.
@MainActor
private enum BindingKey {
    static var key: UInt8 = 0
}
#endif
