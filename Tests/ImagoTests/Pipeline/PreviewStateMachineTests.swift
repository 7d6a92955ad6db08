import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// When previews are decoded: one at a time, each showing more scans, intermediate ones skipped,
/// none for a sequential file or a complete body; without decoding or timing.
@Suite("Preview state machine")
struct PreviewStateMachineTests {
    /// A five-scan progressive JPEG and the offsets at which scans 1…5 are known complete.
    static let file: (data: Data, complete: [Int]) = {
        let data = (try? JPEGEncoder(quality: 0.9, progressive: true).encode(Fixtures.picture(width: 64, height: 48))) ?? Data()
        var tracker = JPEGScanTracker()
        var complete: [Int] = []
        for offset in data.indices {
            tracker.consume(data[offset...offset])
            if tracker.completedScans > complete.count { complete.append(offset + 1) }
        }
        return (data, complete)
    }()

    /// Feeds the machine the file up to `end`, from where it had read.
    static func feed(_ machine: inout PreviewStateMachine, upTo end: Int) -> PreviewStateMachine.Action {
        machine.consume(file.data[machine.tracker.count..<end])
        return machine.next()
    }

    @Test func decodesEachNewScanWhenIdle() {
        var machine = PreviewStateMachine(maximumScans: 100)
        let complete = Self.file.complete
        #expect(Self.feed(&machine, upTo: complete[0] - 1) == .none, "scan 1 is complete only once the next marker is in")
        guard case .decode(_, scans: 1) = Self.feed(&machine, upTo: complete[0]) else {
            Issue.record("no decode of scan 1")
            return
        }
        #expect(machine.decodeEnded() == .none)
        guard case .decode(_, scans: 2) = Self.feed(&machine, upTo: complete[1]) else {
            Issue.record("no decode of scan 2")
            return
        }
    }

    @Test func skipsIntermediateScansWhileDecoding() {
        var machine = PreviewStateMachine(maximumScans: 100)
        let complete = Self.file.complete
        guard case .decode(_, scans: 1) = Self.feed(&machine, upTo: complete[0]) else {
            Issue.record("no decode of scan 1")
            return
        }
        // Scans 2 and 3 arrive while scan 1 decodes: each is kept, the newer replacing the older.
        guard case .keep(_, scans: 2) = Self.feed(&machine, upTo: complete[1]) else {
            Issue.record("scan 2 not kept")
            return
        }
        #expect(Self.feed(&machine, upTo: complete[1] + 1) == .none, "no new scan: nothing to keep")
        guard case .keep(let length, scans: 3) = Self.feed(&machine, upTo: complete[2]) else {
            Issue.record("scan 3 not kept")
            return
        }
        #expect(machine.decodeEnded() == .decode(length: length, scans: 3), "scan 2's preview is skipped")
        #expect(machine.decodeEnded() == .none)
    }

    @Test func aCompleteBodyGetsNoPreview() {
        var machine = PreviewStateMachine(maximumScans: 100)
        #expect(Self.feed(&machine, upTo: Self.file.data.count) == .none, "the final image is next")
        #expect(machine.isFinished)
    }

    @Test func aSequentialFileGetsNone() throws {
        var machine = PreviewStateMachine(maximumScans: 100)
        let baseline = try Fixtures.jpeg(width: 64, height: 48)
        machine.consume(baseline.prefix(baseline.count - 10))
        #expect(machine.next() == .none)
        #expect(machine.isFinished)
    }

    @Test func noPreviewPastTheScanLimit() {
        var machine = PreviewStateMachine(maximumScans: 1)
        guard case .decode(_, scans: 1) = Self.feed(&machine, upTo: Self.file.complete[0]) else {
            Issue.record("no decode of scan 1")
            return
        }
        _ = machine.decodeEnded()
        #expect(Self.feed(&machine, upTo: Self.file.complete[1]) == .none)
        #expect(machine.isFinished)
    }

    @Test func finishingDropsWhatWasKept() {
        var machine = PreviewStateMachine(maximumScans: 100)
        _ = Self.feed(&machine, upTo: Self.file.complete[0])
        _ = Self.feed(&machine, upTo: Self.file.complete[1])
        machine.finish()
        #expect(machine.decodeEnded() == .none)
        #expect(Self.feed(&machine, upTo: Self.file.complete[2]) == .none)
    }

    @Test func aNewAttemptReadsFromTheStartButOnlyShowsMore() {
        var machine = PreviewStateMachine(maximumScans: 100)
        _ = Self.feed(&machine, upTo: Self.file.complete[1])  // scans 1–2 in one piece: a preview of 2
        _ = machine.decodeEnded()
        machine.restartBody()
        #expect(Self.feed(&machine, upTo: Self.file.complete[1]) == .none, "2 scans again show nothing new")
        guard case .decode(_, scans: 3) = Self.feed(&machine, upTo: Self.file.complete[2]) else {
            Issue.record("no decode of scan 3")
            return
        }
    }
}

/// The renderer performs the machine's decisions: one decode at a time, and none after `stop()`.
@Suite struct PreviewRendererTests {
    @Test func stopCancelsTheDecodeUnderWayAndWaitsForIt() async throws {
        let started = Locked(false)
        let sawCancellation = Locked(false)
        let delivered = Locked(0)
        let renderer = PreviewRenderer(
            maximumScans: 100, priority: nil,
            render: { _ throws(ImagePipeline.Error) in
                started.withLock { $0 = true }
                // A decode that runs until it is cancelled (bounded, for a broken test).
                let deadline = ContinuousClock.now + .seconds(60)
                while !Task.isCancelled, ContinuousClock.now < deadline { usleep(1_000) }
                sawCancellation.withLock { $0 = Task.isCancelled }
                throw .cancelled(URL(string: "https://example.com/a.jpg")!)
            },
            deliver: { _ in delivered.withLock { $0 += 1 } })
        let file = PreviewStateMachineTests.file
        renderer.receive(ReceivedBody(kept: Data(), received: file.data.prefix(file.complete[0]), attempt: 1))
        #expect(await eventually { started.withLock { $0 } })
        await renderer.stop()
        #expect(sawCancellation.withLock { $0 }, "stop() returned only once the decode had seen its cancellation")
        renderer.receive(ReceivedBody(kept: Data(), received: file.data.prefix(file.complete[2]), attempt: 1))
        #expect(delivered.withLock { $0 } == 0)
    }

    @Test func deliversOnePreviewPerNewScanFromKeptAndNewBytes() async throws {
        let delivered = Locked<[ImagePreview]>([])
        let renderer = PreviewRenderer(
            maximumScans: 100, priority: nil,
            render: { prefix throws(ImagePipeline.Error) in try ImageContainer(bitmap: Bitmap(width: 1, height: 1, alphaMode: .opaque, pixels: [0, 0, 0, 255]), format: .jpeg) },
            deliver: { preview in delivered.withLock { $0.append(preview) } })
        let file = PreviewStateMachineTests.file
        // A resumed body: the first scan's bytes were kept, the rest arrives.
        let kept = file.data.prefix(file.complete[0])
        renderer.receive(ReceivedBody(kept: kept, received: Data(), attempt: 1))
        #expect(await eventually { delivered.withLock { $0.count } == 1 })
        renderer.receive(ReceivedBody(kept: kept, received: file.data[file.complete[0]..<file.complete[1]], attempt: 1))
        #expect(await eventually { delivered.withLock { $0.count } == 2 })
        await renderer.stop()
        #expect(delivered.withLock { $0.map(\.scanCount) } == [1, 2])
        #expect(delivered.withLock { $0.map(\.byteCount) } == [file.complete[0] - 2, file.complete[1] - 2])
    }
}
