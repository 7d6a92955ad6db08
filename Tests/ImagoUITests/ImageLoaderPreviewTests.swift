import Foundation
import ImagoTestSupport
import Testing

@testable import Imago
@testable import ImagoUI

/// The preview phase: a progressive JPEG sent scan by scan by the loopback server (each part
/// waits for the test) shows as previews, sharper each time, then as the image.
@Suite("ImageLoader previews") @MainActor
struct ImageLoaderPreviewTests {
    static let path = "/progressive.jpg"

    /// Serves a progressive JPEG in parts, each completing one more scan; returns a request for it
    /// that asks for previews, and the number of parts withheld.
    static func serveProgressive(_ fixture: LoaderFixture) throws -> (ImageRequest, parts: Int) {
        let data = try JPEGEncoder(quality: 0.9, progressive: true).encode(Fixtures.picture(width: 320, height: 240, seed: 3))
        var tracker = JPEGScanTracker()
        var parts: [Int] = []
        for offset in data.indices {
            tracker.consume(data[offset...offset])
            if tracker.completedScans > parts.count { parts.append(offset + 1) }
        }
        fixture.server.set(path, data: data, contentType: "image/jpeg")
        fixture.server.setBehavior(path, .slices(boundaries: Array(parts.dropLast())))
        var request = ImageRequest(url: fixture.server.url(for: path))
        request.decodesPreviews = true
        return (request, parts.count - 1)
    }

    static func scans(_ phase: ImageLoader.Phase) -> Int? {
        if case .preview(let preview, _) = phase { preview.scanCount } else { nil }
    }

    @Test("previews show as a phase, each with more scans, then the image")
    func previewPhase() async throws {
        try await LoaderFixture.with { fixture in
            let (request, parts) = try Self.serveProgressive(fixture)
            let loader = fixture.makeLoader()
            let recorder = PhaseRecorder(loader)
            loader.load(request)
            for scans in 1...parts {
                try #require(await eventually { Self.scans(loader.phase) == scans }, "phases: \(recorder.phases)")
                #expect(loader.phase.image != nil)
                #expect(ImageContentKind(loader.phase) == .success)
                // Loading the same request again while its preview shows does nothing.
                let task = loader.imageTask
                loader.load(request)
                #expect(loader.imageTask === task)
                fixture.server.sendNextSlice(Self.path)
            }
            try #require(await eventually { loader.phase.response != nil })
            // Progress updates repeat a preview's phase; the previews themselves come once each, in order.
            let previews = recorder.phases.filter { $0.hasPrefix("preview") }.reduce(into: [String]()) { shown, phase in
                if shown.last != phase { shown.append(phase) }
            }
            #expect(previews == (1...parts).map { "preview(\($0)" + ")" })
            #expect(recorder.phases.last == "success(network)")
            #expect(recorder.phases.first == "loading")
        }
    }

    @Test("cancelling while a preview shows returns to empty")
    func cancelDuringPreview() async throws {
        try await LoaderFixture.with { fixture in
            let (request, _) = try Self.serveProgressive(fixture)
            let loader = fixture.makeLoader()
            let recorder = PhaseRecorder(loader)
            loader.load(request)
            try #require(await eventually { Self.scans(loader.phase) == 1 })
            let task = try #require(loader.imageTask)
            loader.cancel()
            #expect(loader.phase.summary == "empty")
            await #expect(throws: ImagePipeline.Error.cancelled(request.url)) { try await task.response }
            #expect(recorder.phases.last == "empty")
            #expect(!recorder.phases.contains { $0.hasPrefix("failure") })
        }
    }

    @Test("without previews asked for, the phase goes from loading to the image")
    func noPreviewsByDefault() async throws {
        try await LoaderFixture.with { fixture in
            var (request, parts) = try Self.serveProgressive(fixture)
            request.decodesPreviews = nil  // the pipeline's default: off
            let loader = fixture.makeLoader()
            let recorder = PhaseRecorder(loader)
            loader.load(request)
            for _ in 0..<parts { fixture.server.sendNextSlice(Self.path) }
            try #require(await eventually { loader.phase.response != nil })
            #expect(!recorder.phases.contains { $0.hasPrefix("preview") })
        }
    }

    @Test("a view binding shows each preview, the first with the transition, then the image at once")
    func bindingPresentsPreviews() async throws {
        try await LoaderFixture.with { fixture in
            let (request, parts) = try Self.serveProgressive(fixture)
            var presented: [(kind: ImageContentKind, transition: ImageTransition, size: String)] = []
            let binding = ImageViewBinding(pipeline: fixture.pipeline, configuration: fixture.configuration()) { presentation in
                let size = presentation.image.map { ImageContainer(image: $0, format: .png).pixelSize.description } ?? "nil"
                presented.append((presentation.kind, presentation.transition, size))
            }
            binding.setImage(with: request, transition: .fadeIn)
            for scans in 1...parts {
                try #require(await eventually { Self.scans(binding.loader.phase) == scans })
                fixture.server.sendNextSlice(Self.path)
            }
            try #require(await eventually { binding.loader.phase.response != nil })
            #expect(presented.map(\.kind) == [.placeholder] + Array(repeating: .success, count: parts + 1))
            #expect(presented.map(\.transition) == [.none, .fadeIn] + Array(repeating: .none, count: parts))
            #expect(presented.dropFirst().allSatisfy { $0.size == "320x240" })
        }
    }
}
