import Testing

@testable import Imago

/// The playback rules as a value: no clock, every time given.
@Suite struct AnimationPlaybackTests {
    typealias Action = AnimationPlayback.Action

    @Test(arguments: [
        (0, 100), (1, 100), (10, 100), (11, 11), (20, 20), (19, 19), (100, 100), (5_000, 5_000),
    ] as [(Int, Int)])
    func shortDelaysPlayAsBrowsersPlayThem(declared: Int, shown: Int) {
        #expect(FrameTiming.displayDuration(.milliseconds(declared)) == .milliseconds(shown))
    }

    /// Plays `playback` to its end (or `limit` frames), each frame lasting `durations[index]`,
    /// with every tick on time; returns the frames shown.
    func playThrough(_ playback: inout AnimationPlayback, durations: [Int], limit: Int = 100) -> [Int] {
        var shown: [Int] = []
        var now = Duration.zero
        var action = playback.start(at: now)
        while shown.count < limit {
            switch action {
            case .show(let index):
                shown.append(index)
                action = playback.frameShown(duration: .milliseconds(durations[index]), at: now)
            case .wait(let deadline):
                now = deadline
                action = playback.tick(at: now)
            case .idle, .finish:
                return shown
            }
        }
        return shown
    }

    @Test func playsNTimesThenStaysOnTheLastFrame() {
        var playback = AnimationPlayback(frameCount: 3, loopCount: 2)
        #expect(playThrough(&playback, durations: [10, 20, 30]) == [0, 1, 2, 0, 1, 2])
        #expect(playback.isFinished && playback.frameIndex == 2 && playback.completedLoops == 2)
        #expect(playback.tick(at: .seconds(100)) == .idle)
    }

    @Test func loopCountZeroPlaysForever() {
        var playback = AnimationPlayback(frameCount: 3, loopCount: 0)
        #expect(playThrough(&playback, durations: [10, 20, 30], limit: 30) == Array(repeating: [0, 1, 2], count: 10).flatMap { $0 })
        #expect(!playback.isFinished)
    }

    @Test func deadlinesAddUpWithoutDrift() {
        var playback = AnimationPlayback(frameCount: 2, loopCount: 0)
        #expect(playback.start(at: .zero) == .show(frame: 0))
        #expect(playback.frameShown(duration: .milliseconds(100), at: .milliseconds(3)) == .wait(until: .milliseconds(103)))
        // The timer fires 7 ms late: the next frame still ends 100 ms after the previous deadline.
        #expect(playback.tick(at: .milliseconds(110)) == .show(frame: 1))
        #expect(playback.frameShown(duration: .milliseconds(100), at: .milliseconds(110)) == .wait(until: .milliseconds(203)))
        // Early ticks wait on.
        #expect(playback.tick(at: .milliseconds(150)) == .wait(until: .milliseconds(203)))
        // A timer late by more than a whole frame restarts the count from now.
        #expect(playback.tick(at: .milliseconds(900)) == .show(frame: 0))
        #expect(playback.frameShown(duration: .milliseconds(100), at: .milliseconds(900)) == .wait(until: .milliseconds(1000)))
    }

    @Test func offScreenPausesAndResumesWithTheTimeLeft() {
        var playback = AnimationPlayback(frameCount: 3, loopCount: 0)
        _ = playback.start(at: .zero)
        _ = playback.frameShown(duration: .milliseconds(100), at: .zero)
        #expect(playback.tick(at: .milliseconds(100)) == .show(frame: 1))
        #expect(playback.frameShown(duration: .milliseconds(200), at: .milliseconds(100)) == .wait(until: .milliseconds(300)))
        // Off screen 150 ms into frame 1: no timer, nothing advances, however long it stays away.
        #expect(playback.setVisible(false, at: .milliseconds(250)) == .idle)
        #expect(playback.tick(at: .milliseconds(300)) == .idle)
        #expect(playback.tick(at: .seconds(60)) == .idle)
        #expect(playback.frameIndex == 1)
        // Back at 60 s: frame 1 gets its remaining 50 ms.
        #expect(playback.setVisible(true, at: .seconds(60)) == .wait(until: .milliseconds(60_050)))
        #expect(playback.setVisible(true, at: .seconds(60)) == .idle)
        #expect(playback.tick(at: .milliseconds(60_050)) == .show(frame: 2))
    }

    @Test func hiddenWhileAFrameIsFetchedKeepsItsWholeDuration() {
        var playback = AnimationPlayback(frameCount: 2, loopCount: 0)
        #expect(playback.start(at: .zero) == .show(frame: 0))
        #expect(playback.setVisible(false, at: .zero) == .idle)
        #expect(playback.frameShown(duration: .milliseconds(80), at: .milliseconds(5)) == .idle)
        #expect(playback.setVisible(true, at: .seconds(1)) == .wait(until: .milliseconds(1_080)))
    }

    @Test func startingOffScreenShowsTheFirstFrameOnly() {
        var playback = AnimationPlayback(frameCount: 2, loopCount: 1)
        #expect(playback.setVisible(false, at: .zero) == .idle)
        #expect(playback.start(at: .zero) == .show(frame: 0))
        #expect(playback.frameShown(duration: .milliseconds(50), at: .zero) == .idle)
        #expect(playback.setVisible(true, at: .seconds(3)) == .wait(until: .milliseconds(3_050)))
        #expect(playback.tick(at: .milliseconds(3_050)) == .show(frame: 1))
        #expect(playback.frameShown(duration: .milliseconds(50), at: .milliseconds(3_050)) == .wait(until: .milliseconds(3_100)))
        #expect(playback.tick(at: .milliseconds(3_100)) == .finish)
    }

    @Test func singleFrameWithLoopsFinishes() {
        var playback = AnimationPlayback(frameCount: 1, loopCount: 3)
        #expect(playThrough(&playback, durations: [100]) == [0, 0, 0])
        #expect(playback.isFinished)
    }
}
