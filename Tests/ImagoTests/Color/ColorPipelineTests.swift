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
            let request = ImageRequest(url: url, maximumPixelSize: 48, processors: [seen])
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

extension ColorPipelineTests {
    /// Processed variants on disk are stored after conversion (no profile), or with the kept
    /// profile for a request that keeps it; the original bytes stay as downloaded.
    @Test func processedVariantsOnDiskAreSRGBOrCarryTheKeptProfile() async throws {
        try await PipelineFixture.with { fixture in
            let source = try ColorFixture.data("prophoto.png")
            // Two URLs: a variant is stored when its original comes from the network, and the second
            // request for one URL might find the original on disk already.
            fixture.server.set("/converted.png", data: source, contentType: "image/png")
            fixture.server.set("/kept.png", data: source, contentType: "image/png")
            var configuration = try fixture.configuration()
            configuration.storesProcessedImagesOnDisk = true
            let pipeline = ImagePipeline(configuration: configuration)
            let converted = ImageRequest(url: fixture.server.url(for: "/converted.png"), maximumPixelSize: 48)
            let kept = ImageRequest(url: fixture.server.url(for: "/kept.png"), maximumPixelSize: 48, colorProfileHandling: .keep)
            _ = try await pipeline.image(for: converted)
            _ = try await pipeline.image(for: kept)
            await pipeline.waitForDiskWrites()

            let disk = try DiskCache(directory: fixture.directory)
            #expect(disk.data(forKey: converted.originalKey) == source)
            let convertedBytes = try #require(disk.data(forKey: converted.processedKey))
            #expect(ImageHeader.details(convertedBytes)?.colorProfile == nil)
            let keptBytes = try #require(disk.data(forKey: kept.processedKey))
            #expect(ImageHeader.details(keptBytes)?.colorProfile?.name == "ProPhoto RGB")

            // A new pipeline reads the kept variant from disk with its profile.
            var fresh = try fixture.configuration(memoryCache: false)
            fresh.storesProcessedImagesOnDisk = true
            let again = try await ImagePipeline(configuration: fresh).image(for: kept)
            #expect(again.source == .disk)
            #expect(again.container.colorProfileHandling == .keep && again.container.colorProfile?.name == "ProPhoto RGB")
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
