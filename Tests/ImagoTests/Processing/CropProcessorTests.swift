import Imago
import Testing

extension ProcessingTests {
    @Suite struct CropProcessorTests {
        @Test(
            "a rectangle is copied pixel for pixel",
            arguments: [
                (3, 5, 10, 7), (0, 0, 1, 1), (0, 0, 40, 30), (39, 29, 1, 1), (0, 10, 40, 1), (12, 0, 1, 30),
            ])
        func rectIsExact(_ x: Int, _ y: Int, _ width: Int, _ height: Int) throws {
            let image = Bitmap.coordinates(width: 40, height: 30)
            let cropped = try ImageProcessors.Crop(x: x, y: y, width: width, height: height).process(image)
            #expect(cropped.size == PixelSize(width: width, height: height))
            #expect(cropped.alphaMode == image.alphaMode)
            for row in 0..<height {
                for column in 0..<width {
                    #expect(cropped[column, row] == image[x + column, y + row])
                }
            }
        }

        @Test(
            "the centre square is the largest centred square",
            arguments: [
                (PixelSize(width: 40, height: 30), 5, 0, 30),
                (PixelSize(width: 30, height: 41), 0, 5, 30),
                (PixelSize(width: 16, height: 16), 0, 0, 16),
                (PixelSize(width: 1, height: 9), 0, 4, 1),
            ])
        func centerSquare(_ size: PixelSize, _ x: Int, _ y: Int, _ side: Int) throws {
            let image = Bitmap.coordinates(width: size.width, height: size.height)
            let square = try ImageProcessors.Crop.centerSquare.process(image)
            #expect(square == (try ImageProcessors.Crop(x: x, y: y, width: side, height: side).process(image)))
        }

        @Test(
            "a rectangle outside the image is refused with both named",
            arguments: [
                (-1, 0, 5, 5), (0, -3, 5, 5), (36, 0, 5, 5), (0, 26, 5, 5), (0, 0, 41, 30), (0, 0, 40, 31),
                (Int.max, 0, 5, 5), (0, 0, Int.max, 1),
            ])
        func rectOutsideIsRefused(_ x: Int, _ y: Int, _ width: Int, _ height: Int) throws {
            let processor = ImageProcessors.Crop(x: x, y: y, width: width, height: height)
            let failure = try #require(
                processingFailure {
                    _ = try processor.process(Bitmap.coordinates(width: 40, height: 30))
                })
            #expect(failure.processor == processor.identifier)
            #expect(failure.reason.contains("the rectangle \(width)x\(height) at (\(x), \(y))"))
            #expect(failure.reason.contains("outside the 40x30 image"))
        }

        @Test("an empty rectangle is refused", arguments: [(0, 5), (5, 0), (-2, 5)])
        func emptyRectIsRefused(_ width: Int, _ height: Int) throws {
            let failure = try #require(
                processingFailure {
                    _ = try ImageProcessors.Crop(x: 0, y: 0, width: width, height: height).process(
                        Bitmap.coordinates(width: 8, height: 8))
                })
            #expect(failure.reason.contains("is empty"))
        }

        @Test func identifiers() {
            #expect(ImageProcessors.Crop(x: 10, y: 20, width: 100, height: 50).identifier == "crop(10,20,100x50)")
            #expect(ImageProcessors.Crop.centerSquare.identifier == "crop(centerSquare)")
            let distinct = [
                ImageProcessors.Crop(x: 1, y: 2, width: 3, height: 4), ImageProcessors.Crop(x: 2, y: 1, width: 3, height: 4),
                ImageProcessors.Crop(x: 1, y: 2, width: 4, height: 3), ImageProcessors.Crop(x: 12, y: 3, width: 4, height: 4),
                ImageProcessors.Crop(x: 1, y: 23, width: 4, height: 4), ImageProcessors.Crop.centerSquare,
            ]
            #expect(Set(distinct.map(\.identifier)).count == distinct.count)
        }
    }
}
