import Imago
import Testing

extension ProcessingTests {
    @Suite struct ResizeProcessorTests {
        /// One image size, one processor, the size that must come out.
        struct SizeCase: Sendable, CustomTestStringConvertible {
            var image: PixelSize
            var processor: ImageProcessors.Resize
            var expected: PixelSize

            init(_ width: Int, _ height: Int, _ processor: ImageProcessors.Resize, _ expectedWidth: Int, _ expectedHeight: Int)
            {
                image = PixelSize(width: width, height: height)
                self.processor = processor
                expected = PixelSize(width: expectedWidth, height: expectedHeight)
            }

            var testDescription: String { "\(image) \(processor.identifier) → \(expected)" }
        }

        static func fit(_ width: Int, _ height: Int, upscale: Bool = false) -> ImageProcessors.Resize {
            ImageProcessors.Resize(size: PixelSize(width: width, height: height), contentMode: .aspectFit, upscale: upscale)
        }

        static func fill(_ width: Int, _ height: Int, upscale: Bool = false, crop: Bool = false) -> ImageProcessors.Resize {
            ImageProcessors.Resize(
                size: PixelSize(width: width, height: height), contentMode: .aspectFill, upscale: upscale, crop: crop)
        }

        static let sizeCases: [SizeCase] = [
            // Fit: the whole image inside the box.
            SizeCase(400, 200, fit(100, 100), 100, 50),
            SizeCase(200, 400, fit(100, 100), 50, 100),
            SizeCase(400, 300, fit(200, 200), 200, 150),
            SizeCase(300, 200, fit(30, 10), 15, 10),
            SizeCase(1, 400, fit(10, 10), 1, 10),  // never below one pixel
            SizeCase(50, 25, fit(100, 100), 50, 25),  // no upscaling by default
            SizeCase(50, 25, fit(100, 100, upscale: true), 100, 50),
            SizeCase(
                400, 200,
                ImageProcessors.Resize(size: PixelSize(width: 100, height: 100), contentMode: .aspectFit, crop: true), 100, 50),
            // Fill: the box covered, the image overflowing unless cropped.
            SizeCase(400, 200, fill(100, 100), 200, 100),
            SizeCase(300, 200, fill(30, 10), 30, 20),
            SizeCase(50, 25, fill(100, 100), 50, 25),
            SizeCase(50, 25, fill(100, 100, upscale: true), 200, 100),
            // Fill and crop: exactly the box, unless the image is smaller and may not grow.
            SizeCase(400, 200, fill(100, 100, crop: true), 100, 100),
            SizeCase(200, 400, fill(100, 100, crop: true), 100, 100),
            SizeCase(300, 200, fill(30, 10, crop: true), 30, 10),
            SizeCase(333, 101, fill(64, 48, crop: true), 64, 48),
            SizeCase(50, 25, fill(100, 100, upscale: true, crop: true), 100, 100),
            SizeCase(50, 25, fill(100, 100, crop: true), 50, 25),
            SizeCase(150, 50, fill(100, 100, crop: true), 100, 50),
        ]

        @Test("output size", arguments: sizeCases)
        func outputSize(_ sizeCase: SizeCase) throws {
            #expect(sizeCase.processor.outputSize(for: sizeCase.image) == sizeCase.expected)
            let image = Bitmap(width: sizeCase.image.width, height: sizeCase.image.height, fill: RGBA(10, 20, 30))
            let resized = try sizeCase.processor.process(image)
            #expect(resized.size == sizeCase.expected)
        }

        @Test(
            "fit and uncropped fill keep the aspect ratio within a pixel's rounding",
            arguments: [
                PixelSize(width: 640, height: 480), PixelSize(width: 480, height: 640),
                PixelSize(width: 1000, height: 333),
                PixelSize(width: 97, height: 1201), PixelSize(width: 256, height: 256),
            ])
        func aspectRatioIsKept(_ image: PixelSize) {
            let ratio = Double(image.width) / Double(image.height)
            for processor in [Self.fit(100, 100), Self.fit(64, 200), Self.fill(100, 100), Self.fill(64, 200)] {
                let output = processor.outputSize(for: image)
                // Rounding each side moves the ratio by at most half a pixel on either side.
                let low = (Double(output.width) - 0.5) / (Double(output.height) + 0.5)
                let high = (Double(output.width) + 0.5) / (Double(output.height) - 0.5)
                #expect(low <= ratio && ratio <= high, "\(processor.identifier) made \(output) of \(image)")
            }
        }

        @Test func smallerImagesAreNotEnlargedByDefault() throws {
            let image = Bitmap.coordinates(width: 40, height: 30)
            for processor in [Self.fit(100, 100), Self.fill(100, 100), Self.fit(40, 30)] {
                #expect(try processor.process(image) == image, "\(processor.identifier)")
            }
        }

        @Test func fillAndCropShowsTheCentre() throws {
            // Left, middle and right thirds in red, green, blue; a square crop keeps the green third.
            var image = Bitmap(width: 90, height: 30, fill: RGBA(255, 0, 0))
            for y in 0..<30 {
                for x in 30..<60 { image[x, y] = RGBA(0, 255, 0) }
                for x in 60..<90 { image[x, y] = RGBA(0, 0, 255) }
            }
            let unscaled = try Self.fill(30, 30, crop: true).process(image)
            #expect(unscaled.allPixels.allSatisfy { $0 == RGBA(0, 255, 0) })

            let scaled = try Self.fill(10, 10, crop: true).process(image)
            #expect(scaled.size == PixelSize(width: 10, height: 10))
            // Away from the cut edges, where the filter reaches into the neighbouring thirds.
            for y in 0..<10 {
                for x in 3..<7 { #expect(scaled[x, y] == RGBA(0, 255, 0), "pixel \(x), \(y)") }
            }
        }

        @Test(
            "identifiers",
            arguments: [
                (fit(256, 256), "resize(256x256,fit)"),
                (fit(256, 128, upscale: true), "resize(256x128,fit,upscale)"),
                (fill(256, 256), "resize(256x256,fill)"),
                (fill(256, 256, crop: true), "resize(256x256,fill,crop)"),
                (fill(128, 256, upscale: true, crop: true), "resize(128x256,fill,crop,upscale)"),
            ])
        func identifier(_ processor: ImageProcessors.Resize, _ expected: String) {
            #expect(processor.identifier == expected)
        }

        @Test func identifiersAreDistinctForDistinctOutputs() {
            let processors = [
                Self.fit(256, 256), Self.fit(256, 128), Self.fit(128, 256), Self.fit(256, 256, upscale: true),
                Self.fill(256, 256), Self.fill(256, 256, crop: true), Self.fill(256, 256, upscale: true),
                Self.fill(256, 256, upscale: true, crop: true),
            ]
            #expect(Set(processors.map(\.identifier)).count == processors.count)
            // Cropping cannot change a fit, so it does not split the cache.
            #expect(
                Self.fit(256, 256).identifier
                    == ImageProcessors.Resize(
                        size: PixelSize(width: 256, height: 256), contentMode: .aspectFit, crop: true
                    ).identifier)
        }

        @Test(
            "an empty target size is refused",
            arguments: [
                PixelSize(width: 0, height: 100), PixelSize(width: 100, height: 0), PixelSize(width: -5, height: 10),
            ])
        func emptyTargetIsRefused(_ size: PixelSize) throws {
            let processor = ImageProcessors.Resize(size: size, contentMode: .aspectFit)
            let image = Bitmap(width: 10, height: 10, fill: RGBA(1, 2, 3))
            let failure = try #require(processingFailure { _ = try processor.process(image) })
            #expect(failure.processor == processor.identifier)
            #expect(failure.reason.contains("target size \(size) is empty"))
            #expect(processor.outputSize(for: image.size) == image.size)
        }

        @Test func anEmptyImageIsRefused() throws {
            let failure = try #require(
                processingFailure {
                    _ = try Self.fit(10, 10).process(Bitmap(width: 0, height: 0))
                })
            #expect(failure.reason.contains("the image is empty (0x0 pixels)"))
        }

        /// Target sizes no one can allocate: enlarging to them is refused by the output-pixel limit,
        /// and working out the output size never traps (sides past `Int` come out as `Int.max`).
        static let absurdSizes: [(PixelSize, ImageProcessors.Resize, Int?)] = [
            (PixelSize(width: 10, height: 10), fit(Int.max, Int.max, upscale: true), nil),
            (PixelSize(width: 1, height: 1), fill(Int.max, 1, upscale: true), nil),
            (PixelSize(width: 1, height: 1), fill(Int.max, Int.max, upscale: true, crop: true), nil),
            (PixelSize(width: 3, height: 1), fill(0xFFFF_FFFF, 0xFFFF_FFFF, upscale: true), nil),
            (PixelSize(width: 10, height: 10), fit(0xFFFF_FFFF, 0xFFFF_FFFF, upscale: true), nil),
            (PixelSize(width: 10, height: 10), fit(100_000, 100_000, upscale: true), 10_000_000_000),
            (PixelSize(width: 2, height: 1), fill(20_000, 20_000, upscale: true, crop: true), 400_000_000),
            (PixelSize(width: 10, height: 10), fit(10_001, 10_001, upscale: true), 100_020_001),
        ]

        @Test("enlarging to an absurd size is refused", arguments: absurdSizes)
        func absurdOutputIsRefused(_ image: PixelSize, _ processor: ImageProcessors.Resize, _ needed: Int?) throws {
            let output = processor.outputSize(for: image)
            #expect(output.width >= 1 && output.height >= 1)
            let bitmap = Bitmap(width: image.width, height: image.height, fill: RGBA(1, 2, 3))
            let failure = try #require(processingFailure { _ = try processor.process(bitmap) })
            #expect(failure.processor == processor.identifier)
            #expect(failure.reason.contains("maximumOutputPixelCount (100000000)"), "\(failure.reason)")
            if let needed {
                #expect(failure.reason.contains("at least \(needed)"), "\(failure.reason)")
            } else {
                #expect(failure.reason.contains("more than \(Int.max) pixels"), "\(failure.reason)")
            }
        }

        @Test func outputPixelLimitIsAdjustable() throws {
            let image = Bitmap(width: 4, height: 4, fill: RGBA(1, 2, 3))
            let size = PixelSize(width: 10, height: 10)
            let strict = ImageProcessors.Resize(size: size, contentMode: .aspectFit, upscale: true, maximumOutputPixelCount: 99)
            let failure = try #require(processingFailure { _ = try strict.process(image) })
            #expect(failure.reason.contains("at least 100"), "\(failure.reason)")
            let enough = ImageProcessors.Resize(size: size, contentMode: .aspectFit, upscale: true, maximumOutputPixelCount: 100)
            #expect(try enough.process(image).size == size)
            #expect(ImageProcessors.Resize.defaultMaximumOutputPixelCount == 100_000_000)
        }
    }
}
