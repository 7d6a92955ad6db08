/// The playback of an animation as a value: which frame to show and until when, how many times
/// it loops, and pausing while off screen. Each method takes the current time and returns what
/// the driver (``AnimationPlayer``) must do next, so the rules are tested without a clock.
///
/// Times are offsets from the start of playback, as the driver's clock measures them.
///
/// Rules:
/// - Each frame stays on screen for its duration (already floored as browsers do: a declared
///   delay of 10 ms or less plays as 100 ms), counted from when the previous frame's time ended, so a late timer
///   does not make the whole animation drift; a timer late by more than a whole frame restarts the
///   count from now rather than flashing the missed frames.
/// - `loopCount` 0 plays forever; n plays the animation n times, then stays on its last frame.
/// - While off screen nothing advances and no timer runs; on screen again, the current frame gets
///   back exactly the time it had left.
public struct AnimationPlayback: Sendable, Hashable {
    /// What the driver does next.
    public enum Action: Sendable, Hashable {
        /// Put frame `index` (0-based) on screen, then report its duration with ``frameShown(duration:at:)``.
        case show(frame: Int)
        /// Call ``tick(at:)`` at `deadline` (an offset from the start of playback).
        case wait(until: Duration)
        /// Run no timer: off screen, or already playing.
        case idle
        /// The last play has ended; the last frame stays on screen.
        case finish
    }

    /// Frames in one play of the animation.
    public let frameCount: Int
    /// Plays before stopping; 0 for forever.
    public let loopCount: Int
    /// The frame on screen (or about to be).
    public private(set) var frameIndex = 0
    /// Plays completed so far.
    public private(set) var completedLoops = 0
    /// Whether the animation is on screen.
    public private(set) var isVisible = true
    /// Whether the last loop has ended (never, for a looping-forever animation).
    public private(set) var isFinished = false
    private var isStarted = false
    /// When the frame on screen ends, while a timer runs.
    private var deadline: Duration?
    /// The time the frame on screen had left when it went off screen.
    private var remaining: Duration?
    /// Waiting for ``frameShown(duration:at:)`` after a `.show`.
    private var awaitingFrame = false

    /// Playback of `frameCount` frames, `loopCount` times (0: forever).
    public init(frameCount: Int, loopCount: Int) {
        self.frameCount = max(frameCount, 1)
        self.loopCount = max(loopCount, 0)
    }

    /// Starts with the first frame.
    public mutating func start(at now: Duration) -> Action {
        guard !isStarted else { return .idle }
        isStarted = true
        awaitingFrame = true  // shown even off screen: the first frame is the still image
        return .show(frame: 0)
    }

    /// The frame asked for by `.show` is on screen and lasts `duration`.
    public mutating func frameShown(duration: Duration, at now: Duration) -> Action {
        guard awaitingFrame else { return .idle }
        awaitingFrame = false
        let start = deadline.map { now - $0 > duration ? now : $0 } ?? now  // late by a frame or more: restart
        let end = start + max(duration, .zero)
        guard isVisible else {
            remaining = end - now
            deadline = nil
            return .idle
        }
        deadline = end
        return .wait(until: end)
    }

    /// The timer fired: the next frame, the end of the animation, or more waiting if early.
    public mutating func tick(at now: Duration) -> Action {
        guard isVisible, !isFinished, !awaitingFrame, let end = deadline else { return .idle }
        guard now >= end else { return .wait(until: end) }
        if frameIndex + 1 < frameCount {
            frameIndex += 1
        } else {
            completedLoops += 1
            if loopCount != 0 && completedLoops >= loopCount {
                isFinished = true
                deadline = nil
                return .finish
            }
            frameIndex = 0
        }
        awaitingFrame = true
        return .show(frame: frameIndex)
    }

    /// The animation went off screen or came back.
    public mutating func setVisible(_ visible: Bool, at now: Duration) -> Action {
        guard visible != isVisible else { return .idle }
        isVisible = visible
        guard isStarted, !isFinished else { return .idle }
        if !visible {
            if let end = deadline { remaining = max(end - now, .zero) }
            deadline = nil
            return .idle
        }
        // A frame being fetched reports itself with frameShown; otherwise resume the one on screen.
        guard !awaitingFrame, let left = remaining else { return .idle }
        remaining = nil
        deadline = now + left
        return .wait(until: now + left)
    }
}
