import Foundation
import Testing

@testable import Imago

extension ProcessingTests {
    /// libvips' smart crop strategies, on pictures whose interesting part is known.
    @Suite struct SmartCropProcessorTests {
        /// A grey, faintly textured field with a saturated, edged disc at (`x`, `y`).
        static func field(width: Int, height: Int, disc: (x: Int, y: Int), radius: Int) -> Bitmap {
            var image = Bitmap(width: width, height: height, fill: RGBA(128, 128, 128))
            var state: UInt32 = 7
            for y in 0..<height {
                for x in 0..<width {
                    state = state &* 1_664_525 &+ 1_013_904_223
                    let noise = UInt8(124 + Int(state >> 29))  // 124...131: texture, no edges to speak of
                    let dx = x - disc.x
                    let dy = y - disc.y
                    let inside = dx * dx + dy * dy <= radius * radius
                    image[x, y] = inside ? ((x / 6 + y / 6) % 2 == 0 ? RGBA(230, 20, 30) : RGBA(250, 200, 0)) : RGBA(noise, noise, noise)
                }
            }
            return image
        }

        @Test(arguments: ImageProcessors.SmartCrop.Strategy.allCases)
        func keepsAnOffCentreObject(strategy: ImageProcessors.SmartCrop.Strategy) throws {
            let image = Self.field(width: 900, height: 600, disc: (x: 720, y: 150), radius: 60)
            let finder = ImageProcessors.SmartCrop(width: 300, height: 300, strategy: strategy)
            let origin = finder.origin(in: image)
            #expect(origin.x <= 720 - 60 && origin.x + 300 >= 720 + 60, "\(strategy): \(origin)")
            #expect(origin.y <= 150 - 60 && origin.y + 300 >= 150 + 60, "\(strategy): \(origin)")
            let cropped = try finder.process(image)
            #expect(cropped.size == PixelSize(width: 300, height: 300))
            #expect(cropped[720 - origin.x, 150 - origin.y] == image[720, 150])
        }

        @Test func aWindowAsLargeAsTheImageIsTheImage() throws {
            let image = Bitmap.coordinates(width: 40, height: 30)
            #expect(ImageProcessors.SmartCrop(width: 40, height: 30).origin(in: image) == (0, 0))
            #expect(try ImageProcessors.SmartCrop(width: 400, height: 300).process(image) == image)
            #expect(processingFailure { _ = try ImageProcessors.SmartCrop(width: 0, height: 3).process(image) } != nil)
        }
    }
}
