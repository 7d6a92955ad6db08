#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// Animations through the pipeline: frames counted from the container before decoding
/// (`ImageHeader.frameCount`), a request's frame limit and its animation pixel limits, and the
/// animated encoders' round trip (frames, timings, loop count).
@Suite("pipeline.animationLimits")
struct AnimationLimitTests {
    static let durations: [Duration] = [.milliseconds(50), .milliseconds(150), .milliseconds(90), .milliseconds(300)]

    @Test("frames are counted from the container, without decoding")
    func countsFrames() throws {
        let gif = try Fixtures.animatedGIF(width: 40, height: 30, durations: Self.durations)
        let webp = try Fixtures.animatedWebP(width: 40, height: 30, durations: Self.durations)
        #expect(ImageHeader.frameCount(gif) == 4 && ImageHeader.frameCount(webp) == 4)
        #expect(ImageHeader.frameCount(try Fixtures.png(width: 8, height: 8)) == 1)
        #expect(ImageHeader.frameCount(Data("not an image".utf8)) == nil)
        // Cut inside its third frame's data: two whole frames, as the decoder keeps them.
        let third = try #require(Self.offsets(ofImagesIn: gif).dropFirst(2).first)
        let cut = gif.prefix(third + 40)
        #expect(ImageHeader.frameCount(cut) == 2)
        #expect(try ImageDecoder.decode(cut).frames.count == 2)
    }

    @Test("GIF and WebP keep every frame, its time and the loop count", arguments: [ImageFormat.gif, .webp])
    func roundTrip(format: ImageFormat) throws {
        let source = try ImageDecoder.decode(try Fixtures.animatedGIF(width: 40, height: 30, durations: Self.durations, loopCount: 5))
        #expect(source.loopCount == 5 && source.frames.map(\.duration) == Self.durations)
        let decoded = try ImageDecoder.decode(try source.encodedAnimation(as: format, quality: 1))
        #expect(decoded.format == format && decoded.loopCount == 5)
        #expect(decoded.frames.map(\.duration) == Self.durations)
        for (frame, original) in zip(decoded.frames, source.frames) {
            // Lossless WebP keeps the GIF's palette colours; GIF re-dithers them onto its palette.
            let psnr = ColorDifference.peakSignalToNoise(try frame.bitmap(), try original.bitmap())
            #expect(psnr >= (format == .webp ? 60 : 30), "\(psnr) dB")
        }
        // Played once: GIF writes no NETSCAPE2.0 block, which reads back as one play.
        var once = source
        once.loopCount = 1
        #expect(try ImageDecoder.decode(try once.encodedAnimation(as: format)).loopCount == 1)
    }

    @Test("an opaque GIF animation stores what changed, and plays the very frames of its stills")
    func gifFrameDifferences() throws {
        let base = Fixtures.picture(width: 80, height: 60, seed: 3)
        let frames = (0..<4).map { step -> Bitmap in
            var pixels = base.pixels
            for y in 20..<30 {
                for x in (10 + step * 15)..<(20 + step * 15) { pixels.replaceSubrange((y * 80 + x) * 4..<(y * 80 + x) * 4 + 3, with: [255, 0, 0]) }
            }
            return Bitmap(width: 80, height: 60, alphaMode: .opaque, pixels: pixels)
        }
        let encoder = GIFEncoder()
        let data = try encoder.encodeAnimation(frames.map { ($0, .milliseconds(100)) }, loopCount: 0)
        let decoded = try ImageDecoder.decode(data)
        #expect(decoded.frames.count == 4)
        var stillBytes = 0
        for (frame, bitmap) in zip(decoded.frames, frames) {
            let still = try encoder.encode(bitmap)
            stillBytes += still.count
            // Dithering is the same for a frame alone: the animation shows exactly its indices.
            #expect(try frame.bitmap().pixels == ImageDecoder.decode(still).bitmap().pixels)
        }
        #expect(data.count * 4 < stillBytes * 3, "\(data.count) bytes against \(stillBytes) for the frames whole")
    }

    @Test("the first frames only, and the animation limits before any decode", arguments: ["gif", "webp"])
    func requestLimits(kind: String) async throws {
        try await PipelineFixture.with { fixture in
            let data =
                kind == "gif"
                ? try Fixtures.animatedGIF(width: 40, height: 30, durations: Self.durations)
                : try Fixtures.animatedWebP(width: 40, height: 30, durations: Self.durations)
            fixture.server.set("/a.\(kind)", data: data, contentType: "image/\(kind)")
            let url = fixture.server.url(for: "/a.\(kind)")
            let pipeline = try fixture.makePipeline()
            var request = ImageRequest(url: url, processors: [ImageProcessors.Resize(size: PixelSize(width: 20, height: 15), contentMode: .aspectFit)])
            request.maximumAnimationFrames = 10
            request.maximumAnimationFramePixels = 1_000  // 1,200 a frame
            await #expect(
                throws: ImagePipeline.Error.sourceTooLarge(
                    url, .animationPixels(limit: 1_000, width: 40, height: 30, frames: 4, perFrame: true))
            ) { try await pipeline.image(for: request) }
            request.maximumAnimationFramePixels = nil
            request.maximumSourcePixelCount = 3_000  // 3 frames' 3,600 pixels pass it
            request.maximumAnimationFrames = 3
            await #expect(
                throws: ImagePipeline.Error.sourceTooLarge(
                    url, .animationPixels(limit: 3_000, width: 40, height: 30, frames: 3, perFrame: false))
            ) { try await pipeline.image(for: request) }
            #expect(pipeline.statistics().decodeCount == 0, "refused before decoding")
            request.maximumAnimationFrames = 2
            let two = try await pipeline.image(for: request).container
            #expect(two.frames.count == 2 && two.frames.map(\.duration) == Array(Self.durations.prefix(2)))
            #expect(try two.frames[0].bitmap().width == 20)
            request.maximumAnimationFrames = 1
            #expect(try await pipeline.image(for: request).container.frames.isEmpty)
        }
    }

    /// Where each image descriptor (0x2C) of an encoder's GIF starts (its frames have no local
    /// table, so the blocks follow one another).
    static func offsets(ofImagesIn gif: Data) -> [Int] {
        let bytes = [UInt8](gif)
        var offsets: [Int] = []
        var offset = 13 + 768
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x21:
                offset += 2
                while offset < bytes.count, bytes[offset] != 0 { offset += Int(bytes[offset]) + 1 }
                offset += 1
            case 0x2C:
                offsets.append(offset)
                offset += 10 + 1  // descriptor, minimum code size
                while offset < bytes.count, bytes[offset] != 0 { offset += Int(bytes[offset]) + 1 }
                offset += 1
            default:
                return offsets
            }
        }
        return offsets
    }
}
#endif
