import Foundation

/// Plays an animated image on a clock: the thin driver of ``AnimationPlayback``, fed by a small
/// look-ahead buffer so frames are decoded just ahead of when they are shown.
///
/// Each frame is handed to `display` when it is due. Call ``setVisible(_:)`` when the view
/// scrolls off screen or back: playback pauses (no timer, no decoding) and resumes where it
/// stopped. Memory: `lookahead` decoded frames plus the frame on screen; a GIF given with its
/// bytes is decoded one frame at a time from them, any other animation plays the frames its
/// container holds.
///
/// ```swift
/// let response = try await pipeline.image(for: ImageRequest(url: url))
/// let data = try await pipeline.data(for: ImageRequest(url: url)).data
/// let player = try AnimationPlayer(container: response.container, data: data) { frame, index in
///     await MainActor.run { imageView.image = frame.image }
/// }
/// await player.play()
/// ```
public actor AnimationPlayer<C: Clock<Duration>> {
    private var playback: AnimationPlayback
    private var buffer: AnimationFrameBuffer<AnyAnimationFrameSource>
    private let clock: C
    private let display: @Sendable (AnimationFrame, Int) async -> Void
    private var origin: C.Instant?
    private var runner: Task<Void, Never>?
    private var isSleeping = false
    /// Why playback stopped early, if a frame failed to decode (the last good frame stays shown).
    public private(set) var failure: ImagePipeline.Error?

    /// A player of `container`'s frames.
    ///
    /// - Parameters:
    ///   - container: the decoded image; a still image plays as one frame.
    ///   - data: the image's encoded bytes, if at hand: a GIF is then decoded one frame at a time
    ///     from them (bounded memory) instead of playing the frames `container` holds.
    ///   - limits: the limits a GIF decoded from `data` is held to. Default: `DecodingLimits()`.
    ///   - policy: how a damaged GIF from `data` is treated. Default: ``DecodingPolicy/lenient``.
    ///   - loopCount: how many times the container's frames play (0: forever). Default: 0.
    ///   - lookahead: decoded frames kept ready ahead of the one on screen. Default: 2.
    ///   - clock: the clock frame delays are measured on (a manual one in tests).
    ///   - display: shows a frame; called in order, one at a time.
    /// - Throws: what opening the GIF in `data` throws (a malformed file, a ``DecodingLimits`` limit).
    public init(
        container: ImageContainer, data: Data? = nil, limits: DecodingLimits = DecodingLimits(),
        policy: DecodingPolicy = .lenient, loopCount: Int = 0, lookahead: Int = 2, clock: C,
        display: @escaping @Sendable (AnimationFrame, Int) async -> Void
    ) throws(ImagePipeline.Error) {
        let source = try AnyAnimationFrameSource(
            container: container, data: data, limits: limits, policy: policy, loopCount: loopCount)
        self.init(source: source, lookahead: lookahead, clock: clock, display: display)
    }

    /// A player of `source`'s frames (internal: tests drive a source of their own).
    init(
        source: some AnimationFrameSource, lookahead: Int = 2, clock: C,
        display: @escaping @Sendable (AnimationFrame, Int) async -> Void
    ) {
        let source = source as? AnyAnimationFrameSource ?? AnyAnimationFrameSource(source)
        buffer = AnimationFrameBuffer(source: source, capacity: lookahead)
        playback = AnimationPlayback(frameCount: source.frameCount, loopCount: source.loopCount)
        self.clock = clock
        self.display = display
    }

    /// Whether the last play has ended (or a frame failed to decode).
    public var isFinished: Bool { playback.isFinished || failure != nil }
    /// The frame on screen.
    public var frameIndex: Int { playback.frameIndex }
    /// Decoded frames waiting in the look-ahead buffer.
    public var bufferedFrameCount: Int { buffer.bufferedCount }

    /// Starts playing from the first frame; does nothing if already started.
    public func play() {
        if origin == nil { origin = clock.now }
        perform(playback.start(at: elapsed))
    }

    /// Pauses while `visible` is `false`; resumes the frame on screen with the time it had left.
    public func setVisible(_ visible: Bool) {
        let action = playback.setVisible(visible, at: elapsed)
        // Only a sleeping runner is cancelled: one fetching or showing a frame finishes it, and
        // the playback then answers `.idle` (off screen) and keeps the time the frame has left.
        if !visible && isSleeping {
            runner?.cancel()
            runner = nil
        }
        perform(action)
    }

    /// Stops for good: no more frames are shown.
    public func stop() {
        _ = playback.setVisible(false, at: elapsed)
        runner?.cancel()
        runner = nil
    }

    private var elapsed: Duration { origin.map { $0.duration(to: clock.now) } ?? .zero }

    private func perform(_ action: AnimationPlayback.Action) {
        guard action != .idle, action != .finish else { return }
        runner?.cancel()
        runner = Task { await self.run(from: action) }
    }

    private func run(from first: AnimationPlayback.Action) async {
        var action = first
        while true {
            switch action {
            case .show(let index):
                let frame: AnimationFrame
                do throws(ImagePipeline.Error) {
                    frame = try buffer.take(frame: index)
                } catch {
                    failure = error
                    return
                }
                await display(frame, index)
                action = playback.frameShown(duration: frame.duration, at: elapsed)
                if case .wait = action, !playback.isFinished {
                    do throws(ImagePipeline.Error) { try buffer.fill() } catch { failure = error; return }
                }
            case .wait(let deadline):
                guard let origin else { return }
                isSleeping = true
                do {
                    try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil)
                } catch {
                    isSleeping = false
                    return  // cancelled: paused or stopped
                }
                isSleeping = false
                if Task.isCancelled { return }
                action = playback.tick(at: elapsed)
            case .idle, .finish:
                return
            }
        }
    }
}

extension AnimationPlayer where C == ContinuousClock {
    /// A player of `container`'s frames on the continuous clock; the parameters are those of
    /// ``init(container:data:limits:policy:loopCount:lookahead:clock:display:)``.
    public init(
        container: ImageContainer, data: Data? = nil, limits: DecodingLimits = DecodingLimits(),
        policy: DecodingPolicy = .lenient, loopCount: Int = 0, lookahead: Int = 2,
        display: @escaping @Sendable (AnimationFrame, Int) async -> Void
    ) throws(ImagePipeline.Error) {
        try self.init(
            container: container, data: data, limits: limits, policy: policy, loopCount: loopCount,
            lookahead: lookahead, clock: ContinuousClock(), display: display)
    }
}
