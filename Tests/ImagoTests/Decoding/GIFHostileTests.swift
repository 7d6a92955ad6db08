import Foundation
import Testing

@testable import Imago

/// GIFs a hostile server could send: frames outside the canvas with every disposal, zero sizes,
/// huge frames on a tiny canvas, long animations that must stop when the task is cancelled.
@Suite struct GIFHostileTests {
    /// A frame's rectangle (x, y, width, height) against a 4x4 canvas: inside, across each edge,
    /// just and far outside each side, larger than the canvas, at the largest offsets.
    static let placements: [(Int, Int, Int, Int)] = [
        (1, 1, 2, 2), (3, 1, 2, 2), (1, 3, 2, 2), (3, 3, 2, 2),  // inside, across right, bottom, corner
        (4, 0, 2, 2), (0, 4, 2, 2), (4, 4, 2, 2),  // touching the far sides from outside
        (5, 0, 2, 2), (0, 5, 2, 2), (6, 6, 2, 2),  // beyond them (the old negative range)
        (65_534, 0, 1, 1), (0, 65_534, 1, 1), (65_533, 65_533, 2, 2),  // the largest offsets
        (0, 0, 8, 8), (2, 2, 8, 8), (0, 2, 1, 9), (2, 0, 9, 1),  // larger than the canvas
    ]

    /// Frame 1 fills the canvas green; frame 2 is the red frame under test, with `disposal`;
    /// frame 3 paints (0, 0) blue after frame 2 was disposed of.
    @Test(arguments: placements, 0...7)
    func frameOutsideTheCanvasIsClippedAndDisposed(_ placement: (Int, Int, Int, Int), _ disposal: Int) throws {
        let (x, y, width, height) = placement
        var gif = GIFBuilder(width: 4, height: 4)
        gif.frame(width: 4, height: 4, index: 2)
        gif.frame(x: x, y: y, width: width, height: height, index: 1, disposal: disposal)
        gif.frame(width: 1, height: 1, index: 3)
        let container = try ImageDecoder.decode(gif.data)
        #expect(container.frames.count == 3)
        guard container.frames.count == 3 else { return }

        let inside = { (px: Int, py: Int) in px >= x && px < x + width && py >= y && py < y + height }
        let green: [UInt8] = [0, 255, 0, 255], red: [UInt8] = [255, 0, 0, 255], blue: [UInt8] = [0, 0, 255, 255]
        let second = try container.frames[1].bitmap()
        let third = try container.frames[2].bitmap()
        for py in 0..<4 {
            for px in 0..<4 {
                let offset = (py * 4 + px) * 4
                let shownSecond = Array(second.pixels[offset..<(offset + 4)])
                #expect(shownSecond == (inside(px, py) ? red : green), "frame 2 at (\(px), \(py))")
                let expected: [UInt8] =
                    if px == 0 && py == 0 { blue }
                    else if !inside(px, py) { green }
                    else if disposal == 2 { [0, 0, 0, 0] }  // cleared to transparent
                    else if disposal == 3 { green }  // restored to before frame 2
                    else { red }  // 0, 1 and the undefined 4-7 leave it in place
                #expect(Array(third.pixels[offset..<(offset + 4)]) == expected, "frame 3 at (\(px), \(py))")
            }
        }
    }

    /// A first frame wholly outside the canvas leaves a transparent canvas, whatever its disposal.
    @Test(arguments: 0...7)
    func onlyFrameOutsideTheCanvasShowsNothing(_ disposal: Int) throws {
        var gif = GIFBuilder(width: 3, height: 2)
        gif.frame(x: 40_000, y: 1, width: 2, height: 2, disposal: disposal)
        gif.frame(x: 1, y: 50_000, width: 2, height: 2, disposal: disposal)
        let container = try ImageDecoder.decode(gif.data)
        for frame in container.frames {
            let bitmap = try frame.bitmap()
            #expect(bitmap.width == 3 && bitmap.height == 2)
            #expect(bitmap.pixels.allSatisfy { $0 == 0 })
        }
    }

    /// A frame of zero width or height is, under the strict policy, an error that says so, never a
    /// trap, first or later; lenient (as Chromium) draws it empty and says so in the repairs.
    @Test(arguments: [(0, 2), (2, 0), (0, 0)], [true, false])
    func zeroSizedFrameFails(_ size: (Int, Int), _ isFirst: Bool) throws {
        var gif = GIFBuilder(width: 4, height: 4)
        if !isFirst { gif.frame(width: 4, height: 4, disposal: 2) }
        // A descriptor with the zero size, then what a broken encoder might put after it.
        gif.append([0x2C] + GIFBuilder.le16(1) + GIFBuilder.le16(1) + GIFBuilder.le16(size.0) + GIFBuilder.le16(size.1))
        gif.append([0, 2, 0])
        let lenient = try ImageDecoder.decode(gif.data)
        #expect(lenient.pixelSize == PixelSize(width: 4, height: 4))
        #expect(lenient.repairs.contains { $0.description.contains("\(size.0)x\(size.1) frame") }, "\(lenient.repairs)")
        let error = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(gif.data, policy: .strict)
        }
        guard case .decodingFailed(_, .gif, let reason)? = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("\(size.0)x\(size.1) frame"), "\(reason)")
    }

    /// The budget counts every frame's own area: a 1x1 canvas cannot carry many large frames.
    @Test func frameBudgetCountsEachFramesArea() {
        var gif = GIFBuilder(width: 1, height: 1)
        for _ in 0..<5 { gif.frame(width: 20, height: 20, disposal: 2) }
        var limits = DecodingLimits()
        limits.maximumTotalFramePixels = 1_000
        #expect(throws: ImagePipeline.Error.limitExceeded(nil, .totalFramePixels(count: 1_200, limit: 1_000))) {
            try ImageDecoder.decode(gif.data, limits: limits)
        }
        // Two such frames are within the budget, and each shows the 1x1 canvas.
        var two = GIFBuilder(width: 1, height: 1)
        for _ in 0..<2 { two.frame(width: 20, height: 20) }
        #expect(throws: Never.self) { try ImageDecoder.decode(two.data, limits: limits) }
    }

    /// The error names the limit to raise.
    @Test func frameBudgetErrorNamesTheLimit() {
        let violation = DecodingLimits.Violation.totalFramePixels(count: 1_200, limit: 1_000)
        #expect(violation.description.contains("DecodingLimits.maximumTotalFramePixels"))
    }

    /// A long animation: 1x1 frames on a 64x64 canvas, as many as the frame limit allows.
    static func longAnimation(frames: Int = 1_000) -> Data {
        var gif = GIFBuilder(width: 64, height: 64)
        for index in 0..<frames { gif.frame(x: index % 64, y: index / 64 % 64, width: 1, height: 1) }
        return gif.data
    }

    /// A task cancelled before it decodes stops at the first frame with `cancelled`.
    @Test func cancelledTaskStopsDecoding() async {
        let data = Self.longAnimation()
        let url = URL(string: "https://example.com/long.gif")!
        let task = Task { () throws -> Int in
            withUnsafeCurrentTask { $0?.cancel() }
            return try GIFDecoder().decode(data, context: DecodingContext(format: .gif, url: url)).frameCount
        }
        await #expect(throws: ImagePipeline.Error.cancelled(url)) { try await task.value }
    }

    /// Cancelling the task from outside while it decodes stops it too; the same animation decodes
    /// in full when nobody cancels.
    @Test func cancellingFromOutsideStopsDecoding() async throws {
        let data = Self.longAnimation()
        let task = Task.detached { () throws -> Int in
            try GIFDecoder().decode(data, context: DecodingContext(format: .gif)).frameCount
        }
        task.cancel()
        await #expect(throws: ImagePipeline.Error.cancelled(URL(fileURLWithPath: "/"))) { try await task.value }
        #expect(try ImageDecoder.decode(data).frameCount == 1_000)
    }

    /// A stray byte before the first image is named in the error, at its offset.
    @Test(arguments: [(UInt8(0x99), "0x99"), (0x05, "0x05")])
    func unexpectedBlockIsNamed(_ byte: UInt8, _ shown: String) {
        var gif = GIFBuilder(width: 2, height: 2)
        gif.append([byte])
        #expect(throws: ImagePipeline.Error.decodingFailed(nil, .gif, reason: "unexpected block \(shown) at byte 25")) {
            try ImageDecoder.decode(gif.data)
        }
    }
}
