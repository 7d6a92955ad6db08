import Foundation
import ImagoTestSupport
import Synchronization
import Testing

@testable import Imago

/// A decode of an original runs in the task of the caller that starts it; callers of the same
/// bytes join it. The starter's cancellation stops the decode, never the callers that joined.
@Suite("pipeline.decodedOriginals.cancellation")
struct SharedDecodeCancellationTests {
    /// The built-in decoders behind a gate: the first decode waits until it is cancelled (and
    /// then throws, as a decoder that checks cancellation does); the others decode at once.
    final class GatedDecoder: ImageDecoding {
        private let builtIn = ImageDecoderRegistry()
        private let calls = Atomic<Int>(0)
        private let firstEntered = Atomic<Bool>(false)

        var callCount: Int { calls.load(ordering: .sequentiallyConsistent) }
        var hasEnteredFirst: Bool { firstEntered.load(ordering: .sequentiallyConsistent) }

        func canDecode(_ format: ImageFormat) -> Bool { builtIn.canDecode(format) }

        func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
            if calls.add(1, ordering: .sequentiallyConsistent).newValue == 1 {
                firstEntered.store(true, ordering: .sequentiallyConsistent)
                // Bounded: a test that never cancels fails on its own expectations, not by hanging.
                let deadline = ContinuousClock.now + .seconds(60)
                while !Task.isCancelled, ContinuousClock.now < deadline { usleep(1_000) }
                try context.checkCancellation()
            }
            return try builtIn.decode(data, context: context)
        }
    }

    @Test("a caller that joined a decode gets its image when the caller that started it is cancelled")
    func aJoinerOutlivesTheStartersCancellation() async throws {
        try await withTestServer { server in
            server.set("/photo.jpg", data: try Fixtures.jpeg(width: 1600, height: 1200, seed: 9), contentType: "image/jpeg")
            let url = server.url(for: "/photo.jpg")
            let decoder = GatedDecoder()
            // No tier and no memory cache: the second size joins the first size's decode of the
            // same bytes (1/8 of 1600 covers both) instead of waiting for what a tier would keep.
            var configuration = ImagePipeline.Configuration(memoryCache: nil, connectivity: .alwaysReachable)
            configuration.decoders.register(decoder)
            let pipeline = ImagePipeline(configuration: configuration)

            let starter = Task { try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 100)) }
            #expect(await eventually(within: .seconds(30)) { decoder.hasEnteredFirst })
            let joiner = Task { try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 110)) }
            #expect(await eventually(within: .seconds(30)) { pipeline.originalDecodes.joinerCount == 1 })
            starter.cancel()

            await #expect(throws: ImagePipeline.Error.cancelled(url)) { try await starter.value }
            let image = try await joiner.value
            #expect(image.container.pixelSize == PixelSize(width: 110, height: 83))
            #expect(decoder.callCount == 2, "the joiner decoded again, once")
            #expect(pipeline.originalDecodes.count == 0)
        }
    }
}
