import Testing

@testable import Imago

extension ProcessingTests {
    /// Every processor applies to the image and to each animation frame, keeping what it should.
    @Suite struct ContainerProcessingTests {
        static let colors = [RGBA(255, 0, 0), RGBA(0, 255, 0), RGBA(0, 0, 255)]
        static let durations: [Duration] = [.milliseconds(100), .milliseconds(40), .seconds(1)]

        /// A 3-frame 60x40 animation, one solid colour per frame; the still image is the first frame.
        static func animation() throws -> ImageContainer {
            let frames = try zip(colors, durations).map { color, duration in
                try AnimationFrame(bitmap: Bitmap(width: 60, height: 40, fill: color), duration: duration)
            }
            var container = try ImageContainer(bitmap: Bitmap(width: 60, height: 40, fill: colors[0]), format: .gif)
            container.frames = frames
            return container
        }

        static let processors: [any ImageProcessing] = [
            ThumbnailProcessor(maximumPixelSize: 30),
            ImageProcessors.Resize(size: PixelSize(width: 20, height: 20), contentMode: .aspectFill, crop: true),
            ImageProcessors.Crop(x: 5, y: 5, width: 10, height: 10),
            ImageProcessors.Crop.centerSquare,
            ImageProcessors.RoundedCorners(radius: 10),
        ]

        static let expectedSizes = [
            PixelSize(width: 30, height: 20), PixelSize(width: 20, height: 20), PixelSize(width: 10, height: 10),
            PixelSize(width: 40, height: 40), PixelSize(width: 60, height: 40),
        ]

        @Test("animated containers are processed frame by frame", arguments: zip(processors.indices, expectedSizes))
        func framesAreProcessed(_ index: Int, _ expectedSize: PixelSize) throws {
            let processor = Self.processors[index]
            let container = try processor.process(Self.animation())
            #expect(container.format == .gif)
            #expect(container.frames.count == 3)
            #expect(container.frames.map(\.duration) == Self.durations)
            let still = try container.bitmap()
            #expect(still.size == expectedSize, "\(processor.identifier)")
            for (frame, color) in zip(container.frames, Self.colors) {
                let bitmap = try frame.bitmap()
                #expect(bitmap.size == expectedSize, "\(processor.identifier)")
                // Each frame keeps its own colour: it was processed, not replaced by the first.
                let center = bitmap[expectedSize.width / 2, expectedSize.height / 2]
                #expect(center == color, "\(processor.identifier)")
            }
        }

        @Test func stillContainerStaysStill() throws {
            let container = try ThumbnailProcessor(maximumPixelSize: 10).process(
                ImageContainer(bitmap: Bitmap.coordinates(width: 50, height: 50), format: .png))
            #expect(container.frames.isEmpty)
            #expect(container.pixelSize == PixelSize(width: 10, height: 10))
        }

        @Test func failuresSurfaceThroughTheContainer() throws {
            let container = try Self.animation()
            let processor = ImageProcessors.Crop(x: 50, y: 0, width: 20, height: 20)
            let failure = try #require(processingFailure { _ = try processor.process(container) })
            #expect(failure.processor == "crop(50,0,20x20)")
            #expect(failure.reason.contains("60x40 image"))
            let description = ImagePipeline.Error.processingFailed(
                nil, processor: failure.processor, reason: failure.reason
            )
            .description
            #expect(
                description.hasPrefix("the image: processor 'crop(50,0,20x20)' failed: the rectangle 20x20 at (50, 0)"))
        }
    }
}
