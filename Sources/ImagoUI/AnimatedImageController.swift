#if (canImport(UIKit) && !os(watchOS)) || (canImport(AppKit) && !targetEnvironment(macCatalyst))
import Foundation
import Imago
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif

/// Plays an animated image in a platform image view, one frame at a time: an ``Imago/AnimationPlayer``
/// on the continuous clock sets the view's `image` when each frame is due.
///
/// Memory stays bounded for GIF given its bytes (frames decoded just ahead, 2 waiting); other
/// formats play the frames their container holds. Call ``setVisible(_:)`` as the view leaves and
/// re-enters the screen (``AnimatedImageView`` does it for you): playback pauses and resumes where
/// it stopped. The timing rules (100 ms for delays of 10 ms or less, loop counts) are
/// ``Imago/AnimationPlayback``'s, tested on Linux.
@MainActor
public final class AnimatedImageController {
    private weak var view: PlatformImageView?
    private var player: AnimationPlayer<ContinuousClock>?
    private var isVisible = true

    /// A controller that plays animations in `view`.
    public init(view: PlatformImageView) {
        self.view = view
    }

    /// Plays `container`'s frames (from `data`, when given, for GIF: decoded on demand). A still
    /// image is simply shown.
    public func play(_ container: ImageContainer, data: Data? = nil, limits: DecodingLimits = DecodingLimits()) {
        stop()
        view?.image = container.image
        guard container.isAnimated else { return }
        let player: AnimationPlayer<ContinuousClock>
        do {
            player = try AnimationPlayer(container: container, data: data, limits: limits) { [weak self] frame, _ in
                await self?.show(frame)
            }
        } catch {
            return  // the still first frame stays shown
        }
        self.player = player
        let visible = isVisible
        Task {
            await player.setVisible(visible)
            await player.play()
        }
    }

    /// Pauses while `visible` is `false`; resumes where it stopped.
    public func setVisible(_ visible: Bool) {
        isVisible = visible
        guard let player else { return }
        Task { await player.setVisible(visible) }
    }

    /// Stops playing; the view keeps the frame it shows.
    public func stop() {
        guard let player else { return }
        self.player = nil
        Task { await player.stop() }
    }

    private func show(_ frame: AnimationFrame) {
        view?.image = frame.image
    }
}
#endif
