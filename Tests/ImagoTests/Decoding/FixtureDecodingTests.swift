import Foundation
import Testing

@testable import Imago

/// Every fixture decodes to its size, frames, durations and pixels (within its stated tolerance).
@Suite struct FixtureDecodingTests {
    @Test func corpusIsComplete() {
        #expect(Fixture.all.count >= 35, "manifest.json missing or incomplete in the test bundle")
        for format in ImageFormat.allCases {
            #expect(Fixture.all.contains { $0.file.hasSuffix(format == .jpeg ? "jpg" : format.rawValue) })
        }
    }

    @Test(arguments: Fixture.all)
    func decodesToReference(_ fixture: Fixture) throws {
        let container = try ImageDecoder.decode(try fixture.data())
        let references = try fixture.referenceFrames()
        let shown = container.frames.isEmpty ? [try container.bitmap()] : try container.frames.map { try $0.bitmap() }
        #expect(shown.count == fixture.frameCount)
        #expect(container.frameCount == fixture.frameCount)
        for (index, (bitmap, expected)) in zip(shown, references).enumerated() {
            #expect(bitmap.width == fixture.width && bitmap.height == fixture.height, "frame \(index)")
            let worst = largestDifference(bitmap, expected)
            #expect(
                worst.value <= fixture.tolerance,
                "frame \(index): channel \(worst.channel) at (\(worst.x), \(worst.y)) is off by \(worst.value)")
        }
        #expect(container.frames.map(\.duration) == fixture.durationsMilliseconds.map { .milliseconds($0) })
        #expect(try container.bitmap().alphaMode.rawValue == fixture.alpha)
    }

    @Test(arguments: ["gif-animated", "webp-animated"])
    func firstFrameOnlyWhenAsked(_ name: String) throws {
        let fixture = Fixture.named(name)
        let container = try ImageDecoder.decode(try fixture.data(), decodesAllFrames: false)
        #expect(container.frames.isEmpty)
        #expect(largestDifference(try container.bitmap(), try fixture.referenceFrames()[0]).value == 0)
    }

    @Test func orientationsSwapSidesFrom5On() throws {
        for orientation in 1...8 {
            let image = try ImageDecoder.decode(try Fixture.named("jpeg-orientation-\(orientation)").data()).bitmap()
            let expected = orientation >= 5 ? PixelSize(width: 24, height: 32) : PixelSize(width: 32, height: 24)
            #expect(PixelSize(width: image.width, height: image.height) == expected, "orientation \(orientation)")
        }
    }
}
