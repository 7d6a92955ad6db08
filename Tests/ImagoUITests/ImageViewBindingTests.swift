import Foundation
import Imago
import ImagoTestSupport
import Testing
@testable import ImagoUI

@Suite("ImageViewBinding") @MainActor
struct ImageViewBindingTests {
    /// A 1x1 image standing for the placeholder.
    let placeholder: PlatformImage

    init() throws {
        placeholder = try ImageContainer(
            bitmap: Bitmap(width: 1, height: 1, alphaMode: .opaque, pixels: [0, 0, 0, 255]), format: .png
        ).image
    }

    @Test("shows the placeholder, then the image")
    func placeholderThenImage() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            let display = DisplayLog()
            let binding = ImageViewBinding(pipeline: fixture.pipeline, configuration: fixture.configuration(), display: display.show)

            binding.setImage(with: request, placeholder: placeholder)

            #expect(display.shown == ["1x1"])
            try #require(await eventually { display.shown.count == 2 })
            #expect(display.shown == ["1x1", "64x48"])
            binding.setImage(with: request, placeholder: placeholder)
            #expect(display.shown == ["1x1", "64x48"])
        }
    }

    @Test("a memory hit shows its image at once, without the placeholder")
    func memoryHitSkipsPlaceholder() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            _ = try await fixture.pipeline.image(for: request)
            let display = DisplayLog()
            let binding = ImageViewBinding(pipeline: fixture.pipeline, configuration: fixture.configuration(), display: display.show)

            binding.setImage(with: request, placeholder: placeholder)

            #expect(display.shown == ["64x48"])
        }
    }

    @Test("a reused view shows the new image, never the previous request's, even when it arrives later")
    func reusedViewNeverShowsStaleImage() async throws {
        try await LoaderFixture.with(diskCache: true) { fixture in
            // A waits for the network; B is on disk, so it loads while A is held.
            let a = try fixture.serveJPEG("/a.jpg", width: 64, height: 48, seed: 1)
            let b = try fixture.serveJPEG("/b.jpg", width: 32, height: 24, seed: 2)
            try fixture.pipeline.diskCache?.store(try Fixtures.jpeg(width: 32, height: 24, seed: 2), forKey: b.originalKey)
            let otherCallerOfA = try await fixture.holdForNetwork(a)
            let display = DisplayLog()
            let binding = ImageViewBinding(pipeline: fixture.pipeline, configuration: fixture.configuration(), display: display.show)

            binding.setImage(with: a, placeholder: placeholder)
            let taskOfA = try #require(binding.loader.imageTask)
            binding.setImage(with: b, placeholder: placeholder)

            #expect(taskOfA.isCancelled)
            try #require(await eventually { display.shown.count == 3 })
            #expect(display.shown == ["1x1", "1x1", "32x24"])

            // A now completes for its other caller; the binding must not show it.
            try #require(await fixture.releaseNetwork { fixture.pipeline.cachedImage(for: a) != nil })
            let lateA = try await otherCallerOfA.response
            #expect(lateA.container.pixelSize == PixelSize(width: 64, height: 48))
            await #expect(throws: ImagePipeline.Error.cancelled(a.url)) { try await taskOfA.response }
            for _ in 0..<10 { await Task.yield() }
            #expect(display.shown == ["1x1", "1x1", "32x24"])
            #expect(binding.loader.request?.url == b.url)
            #expect(fixture.server.requestCount(for: "/b.jpg") == 0)
        }
    }

    @Test("nil shows the placeholder and stops loading; a failure keeps the placeholder")
    func nilAndFailureKeepPlaceholder() async throws {
        try await LoaderFixture.with { fixture in
            let display = DisplayLog()
            let binding = ImageViewBinding(pipeline: fixture.pipeline, configuration: fixture.configuration(), display: display.show)
            binding.setImage(with: ImageRequest(url: fixture.server.url(for: "/missing.jpg")), placeholder: placeholder)
            try #require(await eventually { if case .failure = binding.loader.phase { true } else { false } })
            #expect(display.shown == ["1x1"])

            let request = try fixture.serveJPEG("/a.jpg")
            fixture.network.isReachable = false
            binding.setImage(with: request, placeholder: placeholder)
            let task = try #require(binding.loader.imageTask)
            binding.setImage(with: nil, placeholder: nil)

            #expect(task.isCancelled)
            #expect(display.shown == ["1x1", "1x1", "nil"])
            binding.cancel()
            #expect(display.shown == ["1x1", "1x1", "nil"])
        }
    }
}

/// What a fake image view was told to show, in order: `WxH`, or `nil`.
@MainActor
final class DisplayLog {
    private(set) var shown: [String] = []

    func show(_ image: PlatformImage?) {
        shown.append(image.map { ImageContainer(image: $0, format: .png).pixelSize.description } ?? "nil")
    }
}
