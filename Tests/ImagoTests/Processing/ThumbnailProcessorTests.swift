import Imago
import Testing

extension ProcessingTests {
    @Suite struct ThumbnailProcessorTests {
        @Test(
            "the longer side becomes the maximum, the aspect ratio stays",
            arguments: [
                (PixelSize(width: 300, height: 120), 60, PixelSize(width: 60, height: 24)),  // landscape
                (PixelSize(width: 120, height: 300), 60, PixelSize(width: 24, height: 60)),  // portrait
                (PixelSize(width: 200, height: 200), 64, PixelSize(width: 64, height: 64)),
                (PixelSize(width: 401, height: 3), 100, PixelSize(width: 100, height: 1)),
                (PixelSize(width: 3, height: 401), 100, PixelSize(width: 1, height: 100)),
            ])
        func size(_ image: PixelSize, _ maximum: Int, _ expected: PixelSize) throws {
            let processor = ThumbnailProcessor(maximumPixelSize: maximum)
            #expect(processor.outputSize(for: image) == expected)
            let thumbnail = try processor.process(Bitmap(width: image.width, height: image.height, fill: RGBA(9, 8, 7)))
            #expect(thumbnail.size == expected)
        }

        @Test("a smaller image is returned unchanged, never enlarged", arguments: [60, 61, 500])
        func smallerImageIsUnchanged(_ maximum: Int) throws {
            let image = Bitmap.coordinates(width: 60, height: 40)
            #expect(try ThumbnailProcessor(maximumPixelSize: maximum).process(image) == image)
        }

        @Test func identifierIsStableAndMatchesTheRequestKey() {
            #expect(ThumbnailProcessor(maximumPixelSize: 256).identifier == "thumbnail(256)")
            #expect(
                ThumbnailProcessor(maximumPixelSize: 256).identifier
                    == ThumbnailProcessor(maximumPixelSize: 256).identifier)
            #expect(
                ThumbnailProcessor(maximumPixelSize: 256).identifier
                    != ThumbnailProcessor(maximumPixelSize: 128).identifier)
            #expect(
                ThumbnailProcessor(maximumPixelSize: 256).identifier
                    != ImageProcessors.Resize(size: PixelSize(width: 256, height: 256), contentMode: .aspectFit).identifier)
        }

        @Test("a maximum below one pixel is refused", arguments: [0, -1])
        func emptyMaximumIsRefused(_ maximum: Int) throws {
            let processor = ThumbnailProcessor(maximumPixelSize: maximum)
            let failure = try #require(
                processingFailure {
                    _ = try processor.process(Bitmap(width: 4, height: 4, fill: RGBA(1, 1, 1)))
                })
            #expect(failure.processor == "thumbnail(\(maximum))")
            #expect(failure.reason.contains("maximum pixel size \(maximum) is too small"))
        }
    }
}
