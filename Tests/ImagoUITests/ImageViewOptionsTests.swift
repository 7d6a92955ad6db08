import Foundation
import Imago
import ImagoTestSupport
import Testing
@testable import ImagoUI

/// The image-view helper's options (failure image, transition, content modes, onCompletion) and
/// `LazyImage`'s `onCompletion`, decided by `ImageViewBinding` and `ImageLoader`.
@Suite("Image view options") @MainActor
struct ImageViewOptionsTests {
    let placeholder = try! ImageContainer(bitmap: Fixtures.picture(width: 1, height: 1), format: .png).image
    let failureImage = try! ImageContainer(bitmap: Fixtures.picture(width: 2, height: 2), format: .png).image

    /// Presentations as `kind size transition`, and completions as `ok WxH` / `error code`.
    @MainActor final class Log {
        var entries: [String] = []

        func present(_ presentation: ImageViewBinding.Presentation) {
            let size = presentation.image.map { ImageContainer(image: $0, format: .png).pixelSize.description } ?? "nil"
            let transition = presentation.transition == .none ? "none" : "fade"
            entries.append("\(presentation.kind) \(size) \(transition)")
        }

        func complete(_ result: Result<ImageResponse, ImageLoader.Error>) {
            switch result {
            case .success(let response): entries.append("ok \(response.container.pixelSize)")
            case .failure(.pipeline(let error)): entries.append("error \(error.code)")
            case .failure(let error): entries.append("error \(error)")
            }
        }
    }

    @Test("A download fades in and completes once")
    func downloadFadesIn() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            let log = Log()
            let binding = ImageViewBinding(pipeline: fixture.pipeline, configuration: fixture.configuration(), present: log.present)
            binding.setImage(with: request, placeholder: placeholder, transition: .fadeIn, onCompletion: log.complete)
            try #require(await eventually { log.entries.count == 3 })
            #expect(log.entries == ["placeholder 1x1 none", "success 64x48 fade", "ok 64x48"])
        }
    }

    @Test("A memory hit appears at once, without the fade, and completes")
    func memoryHitDoesNotFade() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            _ = try await fixture.pipeline.image(for: request)
            let log = Log()
            let binding = ImageViewBinding(pipeline: fixture.pipeline, configuration: fixture.configuration(), present: log.present)
            binding.setImage(with: request, placeholder: placeholder, transition: .fadeIn, onCompletion: log.complete)
            #expect(log.entries == ["success 64x48 none", "ok 64x48"])
        }
    }

    @Test("A failure shows the failure image with the transition; without one, what is shown stays")
    func failureImage() async throws {
        try await LoaderFixture.with { fixture in
            let missing = ImageRequest(url: fixture.server.url(for: "/missing.jpg"))
            let log = Log()
            let binding = ImageViewBinding(pipeline: fixture.pipeline, configuration: fixture.configuration(), present: log.present)
            binding.setImage(with: missing, placeholder: placeholder, failureImage: failureImage, transition: .fadeIn, onCompletion: log.complete)
            try #require(await eventually { log.entries.count == 3 })
            #expect(log.entries == ["placeholder 1x1 none", "failure 2x2 fade", "error http_status"])

            let other = ImageRequest(url: fixture.server.url(for: "/also-missing.jpg"))
            binding.setImage(with: other, placeholder: placeholder, onCompletion: log.complete)
            try #require(await eventually { log.entries.count == 5 })
            #expect(log.entries.suffix(2) == ["placeholder 1x1 none", "error http_status"])
        }
    }

    @Test("A replaced or cancelled load never calls its onCompletion")
    func replacedLoadDoesNotComplete() async throws {
        try await LoaderFixture.with { fixture in
            let a = try fixture.serveJPEG("/a.jpg")
            fixture.server.setBehavior("/a.jpg", .held)
            let b = try fixture.serveJPEG("/b.jpg", width: 32, height: 24)
            let log = Log()
            let binding = ImageViewBinding(pipeline: fixture.pipeline, configuration: fixture.configuration(), present: log.present)
            binding.setImage(with: a, placeholder: placeholder) { _ in log.entries.append("completion of a") }
            try #require(await eventually { fixture.server.requestCount(for: "/a.jpg") == 1 })
            binding.setImage(with: b, placeholder: placeholder, onCompletion: log.complete)
            try #require(await eventually { log.entries.count == 4 })
            #expect(log.entries == ["placeholder 1x1 none", "placeholder 1x1 none", "success 32x24 none", "ok 32x24"])

            fixture.server.setBehavior("/b.jpg", .held)
            let c = ImageRequest(url: fixture.server.url(for: "/b.jpg"), processors: [ImageProcessors.RoundedCorners(radius: 2)])
            binding.setImage(with: c, placeholder: placeholder) { _ in log.entries.append("completion of c") }
            try #require(await eventually { fixture.server.requestCount(for: "/b.jpg") == 2 })
            binding.cancel()
            fixture.server.release("/a.jpg")
            fixture.server.release("/b.jpg")
            try await Task.sleep(for: .milliseconds(200))
            #expect(!log.entries.contains("completion of a") && !log.entries.contains("completion of c"))
        }
    }

    @Test("Content modes by kind")
    func contentModes() {
        let modes = ImageContentModes(success: "fill", placeholder: "center", failure: "fit")
        #expect([ImageContentKind.success, .placeholder, .failure].map { modes[$0] } == ["fill", "center", "fit"])
        #expect(ImageContentKind(.empty) == .placeholder && ImageContentKind(.loading(nil, waitingForNetwork: true)) == .placeholder)
    }

    @Test("Fade lengths in seconds")
    func transitionSeconds() {
        #expect(ImageTransition.fadeIn.seconds == 0.25)
        #expect(ImageTransition.fadeIn(duration: .seconds(1)).seconds == 1)
        #expect(ImageTransition.none.seconds == nil && ImageTransition.fadeIn(duration: .zero).seconds == nil)
    }

    @Test("The loader's onCompletion: memory hits and failures, never cancellations")
    func loaderOnCompletion() async throws {
        try await LoaderFixture.with { fixture in
            let request = try fixture.serveJPEG("/a.jpg")
            let log = Log()
            let loader = fixture.makeLoader()
            loader.onCompletion = log.complete
            loader.load(request)
            try #require(await eventually { log.entries.count == 1 })
            loader.load(request)  // already shown: nothing
            let second = fixture.makeLoader()
            second.onCompletion = log.complete
            second.load(request)  // a memory hit completes at once
            #expect(log.entries == ["ok 64x48", "ok 64x48"])

            fixture.server.setBehavior("/held.jpg", .held)
            loader.load(ImageRequest(url: fixture.server.url(for: "/held.jpg")))
            try #require(await eventually { fixture.server.requestCount(for: "/held.jpg") == 1 })
            loader.cancel()
            fixture.server.release("/held.jpg")
            loader.load(ImageRequest(url: fixture.server.url(for: "/missing.jpg")))
            try #require(await eventually { log.entries.count == 3 })
            #expect(log.entries.last == "error http_status")
        }
    }
}
