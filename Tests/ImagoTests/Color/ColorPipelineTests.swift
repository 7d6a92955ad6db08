import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// Through the pipeline: a thumbnail's colours are converted after the thumbnail is made (at the
/// output size, as libvips does), before any other processor runs; the result, from the network,
/// memory or disk, is the same sRGB picture; a kept request gets the pixels as stored.
@Suite("Colour profiles: through the pipeline")
struct ColorPipelineTests {
    @Test func aThumbnailIsConvertedAtItsOutputSizeBeforeOtherProcessors() async throws {
        try await PipelineFixture.with { fixture in
            let source = try #require(ColorFixture.decoded.first { $0.file == "prophoto.png" })
            fixture.server.set("/prophoto.png", data: try source.data(), contentType: "image/png")
            let url = fixture.server.url(for: "/prophoto.png")
            let seen = PixelsSeen()
            let request = ImageRequest(url: url, thumbnailPixelSize: 48, processors: [seen])
            let pipeline = try fixture.makePipeline()
            let response = try await pipeline.image(for: request)
            #expect(response.container.pixelSize.width == 48)
            #expect(response.container.pendingColorConversion == nil)
            #expect(response.container.colorProfile?.name == "ProPhoto RGB")

            // What the processor after the thumbnail saw was already sRGB: it matches the
            // reference, thumbnailed the same way; the unconverted pixels do not.
            let reference = try ThumbnailProcessor(maximumPixelSize: 48).process(try source.referenceBitmap())
            let processorSaw = try #require(seen.bitmap)
            #expect(ColorDifference.meanCIEDE2000(processorSaw, reference) < 1.5)
            let kept = try ThumbnailProcessor(maximumPixelSize: 48)
                .process(try ImageDecoder.decode(source.data(), colorProfileHandling: .keep).bitmap())
            #expect(ColorDifference.meanCIEDE2000(kept, reference) > 3)

            // From disk, in a new pipeline: the same picture.
            await pipeline.waitForDiskWrites()
            let again = try await fixture.makePipeline(memoryCache: false).image(for: request)
            #expect(again.source != .network)
            #expect(ColorDifference.meanCIEDE2000(try again.container.bitmap(), try response.container.bitmap()) < 0.5)

            // Kept: the pixels as stored, with their profile, cached apart.
            var keep = request
            keep.colorProfileHandling = .keep
            let keptResponse = try await pipeline.image(for: keep)
            #expect(keptResponse.container.colorProfileHandling == .keep)
            #expect(ColorDifference.meanCIEDE2000(try keptResponse.container.bitmap(), kept) < 0.5)
        }
    }
}

/// A processor that remembers the pixels it was given.
final class PixelsSeen: ImageProcessing, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: Bitmap?

    var identifier: String { "pixels-seen" }

    var bitmap: Bitmap? { lock.withLock { seen } }

    func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer {
        let bitmap = try container.bitmap()
        lock.withLock { seen = bitmap }
        return container
    }
}
