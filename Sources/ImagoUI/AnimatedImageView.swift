#if (canImport(UIKit) && !os(watchOS)) || (canImport(AppKit) && !targetEnvironment(macCatalyst))
import Foundation
import Imago
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif

/// An image view that plays animated images with bounded memory and pauses while it is off
/// screen (out of a window or hidden), resuming where it stopped.
///
/// ```swift
/// let view = AnimatedImageView()
/// let response = try await pipeline.image(for: ImageRequest(url: url))
/// view.play(response.container)
/// ```
public final class AnimatedImageView: PlatformImageView {
    /// The controller driving the frames; exposed for views that manage visibility themselves.
    public private(set) lazy var animation = AnimatedImageController(view: self)

    /// Plays `container` (see ``AnimatedImageController/play(_:data:limits:)``).
    public func play(_ container: ImageContainer, data: Data? = nil) {
        animation.play(container, data: data)
        updateVisibility()
    }

    #if canImport(UIKit)
    /// Pauses playback off screen and resumes it on screen.
    public override func didMoveToWindow() {
        super.didMoveToWindow()
        updateVisibility()
    }

    /// Hiding the view pauses playback.
    public override var isHidden: Bool {
        didSet { updateVisibility() }
    }
    #else
    /// Pauses playback off screen and resumes it on screen.
    public override func viewDidMoveToWindow() {
        super.viewDidMoveToWindow()
        updateVisibility()
    }

    /// Hiding the view pauses playback.
    public override var isHidden: Bool {
        didSet { updateVisibility() }
    }
    #endif

    private func updateVisibility() {
        animation.setVisible(window != nil && !isHidden)
    }
}
#endif
