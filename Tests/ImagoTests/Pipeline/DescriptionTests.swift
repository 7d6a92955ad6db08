import Foundation
import Testing

@testable import Imago

/// What `print(value)` shows: one line a person wants in a log, never pixel bytes.
@Suite struct DescriptionTests {
    static let url = URL(string: "https://images.example.com/photos/a.jpg")!

    static func timing() -> ImageResponse.Timing {
        var timing = ImageResponse.Timing()
        timing.queued = .microseconds(120)
        timing.download = .milliseconds(8)
        timing.decode = .microseconds(4_050)
        timing.total = .microseconds(12_345)
        timing.attempts = 3
        return timing
    }

    /// Each value beside the words its description must contain.
    static func cases() throws -> [(String, [String])] {
        let bitmap = Bitmap(width: 640, height: 480, fill: RGBA(1, 2, 3))
        let still = try ImageContainer(bitmap: bitmap, format: .jpeg)
        var animation = try ImageContainer(bitmap: Bitmap(width: 64, height: 48), format: .gif)
        animation.frames = try (0..<12).map { _ in try AnimationFrame(bitmap: Bitmap(width: 64, height: 48), duration: .milliseconds(100)) }
        let response = ImageResponse(container: still, source: .network, encodedByteCount: 48_200, timing: timing())
        return [
            (bitmap.description, ["Bitmap", "640x480", "opaque", "1.2 MB"]),
            (still.description, ["JPEG", "640x480"]),
            (animation.description, ["GIF", "64x48", "12 frames"]),
            (animation.frames[0].description, ["frame", "64x48", "100.0 ms"]),
            (response.description, ["JPEG", "640x480", "network", "48.2 KB", "12.3 ms"]),
            (timing().description, ["total 12.3 ms", "queued 0.1 ms", "download 8.0 ms", "decode 4.1 ms", "3 attempts"]),
            (PipelineEvent.started(url, key: ImageRequest(url: url).processedKey).description, ["started", url.absoluteString]),
            (PipelineEvent.progress(url, ImageTask.Progress(completed: 1_500, total: 3_000)).description,
             ["progress", url.absoluteString, "1.5 KB of 3.0 KB"]),
            (PipelineEvent.completed(url, source: .disk, timing: timing()).description, ["completed", "disk", "12.3 ms"]),
            (PipelineEvent.failed(url, .httpStatus(url, statusCode: 503)).description, ["failed", "503"]),
            (PipelineEvent.cancelled(url).description, ["cancelled", url.absoluteString]),
        ]
    }

    @Test func descriptionsAreOneShortLineNamingWhatTheyDescribe() throws {
        for (description, words) in try Self.cases() {
            #expect(!description.contains("\n"), "\(description)")
            #expect(description.count < 200, "\(description)")
            for word in words { #expect(description.contains(word), "\(description) should name \(word)") }
        }
    }

    @Test func aBigBitmapPrintsNoPixels() {
        let description = String(describing: Bitmap(width: 1_000, height: 1_000, fill: RGBA(7, 7, 7)))
        #expect(description == "Bitmap(1000x1000, opaque, 4.0 MB)")
    }

    @Test(arguments: [(0, "0 B"), (999, "999 B"), (1_000, "1.0 KB"), (48_200, "48.2 KB"), (4_000_000, "4.0 MB")])
    func byteCounts(_ bytes: Int, _ expected: String) {
        #expect(ByteCountDescription.format(bytes) == expected)
    }
}
