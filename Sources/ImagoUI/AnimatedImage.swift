#if canImport(SwiftUI)
import Imago
import Observation
import SwiftUI

/// Plays an animated image in SwiftUI, frame by frame, and pauses while off screen; a still image
/// is simply shown. `LazyImage`'s default content uses it for animated responses.
///
/// ```swift
/// LazyImage(url: url) { phase in
///     if case .success(let response) = phase { AnimatedImage(response.container) }
/// }
/// ```
///
/// The timing rules (100 ms for delays of 10 ms or less, loop counts, pause and resume) are
/// ``Imago/AnimationPlayback``'s, tested on Linux; this view only shows what the player hands it.
public struct AnimatedImage: View {
    private let container: ImageContainer
    private let data: Data?
    @State private var screen = AnimationScreen()

    /// Plays `container`; with its original `data`, a GIF is decoded a frame at a time just ahead
    /// of display (bounded memory) instead of from the frames the container holds.
    public init(_ container: ImageContainer, data: Data? = nil) {
        self.container = container
        self.data = data
    }

    /// The current frame, advancing while the view is on screen.
    public var body: some View {
        Image(platformImage: screen.image ?? container.image)
            .resizable()
            .onAppear { screen.appear(container, data: data) }
            .onDisappear { screen.disappear() }
    }
}

/// The frame on screen and the player behind it: the state of one ``AnimatedImage``.
@MainActor @Observable
final class AnimationScreen {
    private(set) var image: PlatformImage?
    @ObservationIgnored private var player: AnimationPlayer<ContinuousClock>?

    /// Starts playing on first appearance, resumes on the next ones.
    func appear(_ container: ImageContainer, data: Data?) {
        if let player {
            Task { await player.setVisible(true) }
            return
        }
        guard container.isAnimated,
            let player = try? AnimationPlayer(container: container, data: data, display: { [weak self] frame, _ in
                await self?.show(frame)
            })
        else { return }
        self.player = player
        Task { await player.play() }
    }

    /// Pauses where it is; ``appear(_:data:)`` resumes.
    func disappear() {
        guard let player else { return }
        Task { await player.setVisible(false) }
    }

    private func show(_ frame: AnimationFrame) {
        image = frame.image
    }
}
#endif
