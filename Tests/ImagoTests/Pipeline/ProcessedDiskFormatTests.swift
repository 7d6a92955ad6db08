import Foundation
import Imago
import ImagoTestSupport
import Testing

/// A processed image on disk is JPEG only when it has no alpha, whatever its source format, and a
/// thumbnail that already fits is not processed again.
@Suite("Processed images on disk")
struct ProcessedDiskFormatTests {
    @Test("Rounded corners on a JPEG are stored as PNG; a JPEG thumbnail as JPEG", arguments: [
        (rounded: true, expected: ImageFormat.png), (rounded: false, expected: .jpeg),
    ])
    func formatFollowsAlpha(rounded: Bool, expected: ImageFormat) async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG(width: 64, height: 48)
            var configuration = try fixture.configuration()
            configuration.storesProcessedImagesOnDisk = true
            let pipeline = ImagePipeline(configuration: configuration)
            var request = ImageRequest(url: url, maximumPixelSize: 32)
            if rounded { request.processors = [ImageProcessors.RoundedCorners(radius: 8)] }

            _ = try await pipeline.image(for: request)
            await pipeline.waitForDiskWrites()

            let stored = try #require(pipeline.diskCache?.data(forKey: request.processedKey))
            #expect(ImageFormat.sniff(stored) == expected)
            if rounded {
                // The corner stays transparent after the round trip through the disk.
                let reread = try ImageDecoder.decode(stored).bitmap()
                #expect(reread.pixels[3] == 0)
            }
        }
    }

    @Test("A thumbnail fits when its longer side is at most the maximum", arguments: [
        (PixelSize(width: 256, height: 171), 256, true), (PixelSize(width: 171, height: 256), 256, true),
        (PixelSize(width: 100, height: 100), 256, true), (PixelSize(width: 257, height: 10), 256, false),
        (PixelSize(width: 10, height: 257), 256, false), (PixelSize(width: 0, height: 0), 256, false),
    ])
    func fits(_ size: PixelSize, _ maximum: Int, _ expected: Bool) {
        #expect(ThumbnailProcessor(maximumPixelSize: maximum).fits(size) == expected)
    }

    @Test("An image that already fits passes through; a bad size is still refused")
    func fittingImagePassesThrough() throws {
        let container = try ImageContainer(bitmap: Fixtures.picture(width: 40, height: 30), format: .png)
        let processed = try ThumbnailProcessor(maximumPixelSize: 64).process(container)
        #expect(try processed.bitmap() == container.bitmap())
        #expect(throws: ImagePipeline.Error.self) { try ThumbnailProcessor(maximumPixelSize: 0).process(container) }
        let shrunk = try ThumbnailProcessor(maximumPixelSize: 20).process(container)
        #expect(shrunk.pixelSize == PixelSize(width: 20, height: 15))
    }
}
