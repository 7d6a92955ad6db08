import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// The player on a manual clock: frames appear when due, loops end, off screen pauses and resumes
/// where it stopped. Every wait is on state (a sleeper on the clock, a frame shown), never on time.
@Suite struct AnimationPlayerTests {
    typealias Player = AnimationPlayer<ManualClock>

    /// A player of `fixture` recording the frames it shows.
    func makePlayer(_ fixture: String, clock: ManualClock) throws -> (Player, Locked<[Int]>) {
        let shown = Locked<[Int]>([])
        let source = try GIFFrameSource(data: try Fixture.named(fixture).data())
        let player = Player(source: source, lookahead: 2, clock: clock) { _, index in
            shown.withLock { $0.append(index) }
        }
        return (player, shown)
    }

    /// Waits until the player sleeps on the clock with `count` frames shown.
    func settle(_ clock: ManualClock, _ shown: Locked<[Int]>, count: Int) async {
        let settled = await eventually { clock.sleeperCount == 1 && shown.value.count == count }
        #expect(settled, "expected \(count) frames and a sleeping player, got \(shown.value)")
    }

    @Test func framesAppearWhenDue() async throws {
        let clock = ManualClock()
        // gif-animated: 100, 100, 50, 100, 250 ms, looping forever.
        let (player, shown) = try makePlayer("gif-animated", clock: clock)
        await player.play()
        await settle(clock, shown, count: 1)
        clock.advance(by: .milliseconds(99))
        await settle(clock, shown, count: 1)
        clock.advance(by: .milliseconds(1))
        await settle(clock, shown, count: 2)
        for (step, count) in [(100, 3), (50, 4), (100, 5), (250, 6)] {
            clock.advance(by: .milliseconds(step))
            await settle(clock, shown, count: count)
        }
        #expect(shown.value == [0, 1, 2, 3, 4, 0])
        #expect(await player.bufferedFrameCount <= 2)
        await player.stop()
    }

    @Test func pausesOffScreenAndResumesWhereItStopped() async throws {
        let clock = ManualClock()
        let (player, shown) = try makePlayer("gif-animated", clock: clock)
        await player.play()
        await settle(clock, shown, count: 1)
        clock.advance(by: .milliseconds(60))
        await player.setVisible(false)
        #expect(await eventually { clock.sleeperCount == 0 })
        clock.advance(by: .seconds(30))
        #expect(shown.value == [0])
        await player.setVisible(true)
        await settle(clock, shown, count: 1)
        clock.advance(by: .milliseconds(39))
        await settle(clock, shown, count: 1)
        clock.advance(by: .milliseconds(1))  // the 40 ms frame 0 had left
        await settle(clock, shown, count: 2)
        #expect(await player.frameIndex == 1)
        await player.stop()
    }

    @Test func stopsAfterItsLoops() async throws {
        var bytes = [UInt8](try Fixture.named("gif-animated").data())
        let netscape = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("NETSCAPE2.0".utf8)) })
        bytes[netscape + 13] = 1  // play twice
        let clock = ManualClock()
        let shown = Locked<[Int]>([])
        let player = Player(source: try GIFFrameSource(data: Data(bytes)), clock: clock) { _, index in
            shown.withLock { $0.append(index) }
        }
        await player.play()
        let finished = await eventually {
            if clock.sleeperCount > 0 { clock.advance(by: .milliseconds(50)) }
            return await player.isFinished
        }
        #expect(finished)
        #expect(shown.value == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4])
        #expect(clock.sleeperCount == 0)
    }

    /// A 200-frame animation played through: the buffer never holds more than its look-ahead.
    @Test func longAnimationStaysWithinTheBuffer() async throws {
        let clock = ManualClock()
        let shown = Locked<[Int]>([])
        let player = AnimationPlayer(
            source: try GIFFrameSource(data: try Fixture.named("gif-200-frames").data()), lookahead: 3, clock: clock
        ) { _, index in shown.withLock { $0.append(index) } }
        await player.play()
        var mostBuffered = 0
        let playedThrough = await eventually {
            mostBuffered = max(mostBuffered, await player.bufferedFrameCount)
            if clock.sleeperCount > 0 { clock.advance(by: .milliseconds(20)) }
            return shown.value.count >= 201
        }
        #expect(playedThrough)
        #expect(mostBuffered <= 3)
        #expect(Array(shown.value.prefix(201)) == Array(0..<200) + [0])
        await player.stop()
    }
}
