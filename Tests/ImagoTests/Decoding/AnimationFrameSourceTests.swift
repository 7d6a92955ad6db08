import Foundation
import Testing

@testable import Imago

/// Sequential GIF frames equal the full decoding, loop counts are read as browsers read them, and
/// the look-ahead buffer keeps memory bounded however long the animation.
@Suite struct AnimationFrameSourceTests {
    /// Counts the frames a source decodes, to measure what the buffer holds from the outside.
    struct CountingSource<Base: AnimationFrameSource>: AnimationFrameSource {
        var base: Base
        var decoded = 0
        var format: ImageFormat { base.format }
        var frameCount: Int { base.frameCount }
        var loopCount: Int { base.loopCount }

        mutating func nextFrame() throws(ImagePipeline.Error) -> AnimationFrame {
            decoded += 1
            return try base.nextFrame()
        }
    }

    @Test(arguments: ["gif-animated", "gif-200-frames", "gif-still"])
    func sequentialFramesMatchTheReference(_ name: String) throws {
        let fixture = Fixture.named(name)
        var source = try GIFFrameSource(data: try fixture.data())
        #expect(source.frameCount == fixture.frameCount)
        let references = try fixture.referenceFrames()
        for pass in 0..<2 {  // the second pass proves the rewind
            for (index, expected) in references.enumerated() {
                let frame = try source.nextFrame()
                let bitmap = try frame.bitmap()
                #expect(bitmap.pixels == expected, "pass \(pass) frame \(index)")
                if !fixture.durationsMilliseconds.isEmpty {
                    #expect(frame.duration == .milliseconds(fixture.durationsMilliseconds[index]))
                }
            }
        }
    }

    @Test func loopCountFollowsTheNetscapeExtension() throws {
        #expect(try GIFFrameSource(data: try Fixture.named("gif-animated").data()).loopCount == 0)
        #expect(try GIFFrameSource(data: try Fixture.named("gif-still").data()).loopCount == 1)
        var bytes = [UInt8](try Fixture.named("gif-animated").data())
        let netscape = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("NETSCAPE2.0".utf8)) })
        bytes[netscape + 13] = 2  // repeat twice after the first play
        #expect(try GIFFrameSource(data: Data(bytes)).loopCount == 3)
    }

    @Test func framesOverTheLimitAreRefusedBeforeDecoding() throws {
        var limits = DecodingLimits()
        limits.maximumFrameCount = 199
        let error = #expect(throws: ImagePipeline.Error.self) {
            try GIFFrameSource(data: try Fixture.named("gif-200-frames").data(), limits: limits)
        }
        #expect(error == .limitExceeded(nil, .frameCount(count: 200, limit: 199)))
    }

    /// 200 frames played through twice with a look-ahead of 3: no more than 3 decoded frames ever
    /// wait in the buffer (4 with the one on screen), and each frame is decoded once per play.
    @Test(arguments: [1, 3])
    func bufferHoldsAtMostItsCapacity(capacity: Int) throws {
        let source = CountingSource(base: try GIFFrameSource(data: try Fixture.named("gif-200-frames").data()))
        var buffer = AnimationFrameBuffer(source: source, capacity: capacity)
        let references = try Fixture.named("gif-200-frames").referenceFrames()
        var mostWaiting = 0
        var taken = 0
        for _ in 0..<2 {
            for index in 0..<200 {
                let frame = try buffer.take(frame: index)
                taken += 1
                #expect(try frame.bitmap().pixels == references[index])
                try buffer.fill()
                mostWaiting = max(mostWaiting, buffer.bufferedCount)
                // Decoded but not yet handed over, counted through the source.
                #expect(buffer.sourceDecodedCount - taken <= capacity)
            }
        }
        #expect(mostWaiting == capacity)
        #expect(buffer.sourceDecodedCount == 400 + capacity)
    }
}

extension AnimationFrameBuffer {
    /// What the counting source has decoded so far.
    fileprivate var sourceDecodedCount: Int {
        (source as? AnimationFrameSourceTests.CountingSource<GIFFrameSource>)?.decoded ?? -1
    }
}
