import Foundation
import Testing

@testable import Imago

extension ProcessingTests {
    /// Blur, sharpen, rotation and padding: what imgproxy's `blur`, `sharpen`, `rotate`,
    /// `padding` and `extend` need, as library processors.
    @Suite struct FilterProcessorTests {
        /// One white pixel on black: the blur spreads it as a Gaussian of the given sigma (its
        /// variance along a row is sigma², whichever method runs), keeping the total light.
        @Test(arguments: [0.8, 1.5, 3.0, 7.0])
        func blurSpreadsAnImpulseAsAGaussian(sigma: Double) throws {
            let side = 81
            var image = Bitmap(width: side, height: side, fill: RGBA(0, 0, 0))
            image[40, 40] = RGBA(255, 255, 255)
            var planes = FloatPixels(image)
            planes.blur(sigma: sigma)
            var total = 0.0
            var variance = 0.0
            for y in 0..<side {
                for x in 0..<side {
                    let value = Double(planes.values[(y * side + x) * 4])
                    total += value
                    variance += value * Double((x - 40) * (x - 40))
                }
            }
            #expect(abs(total - 255) < 0.5, "light is kept: \(total)")
            let measured = (variance / total).squareRoot()
            #expect(abs(measured - sigma) < 0.08 * sigma + 0.05, "sigma \(sigma) measured as \(measured)")
            // Symmetric, peaked at the centre.
            #expect(planes.values[(40 * side + 39) * 4] == planes.values[(40 * side + 41) * 4])
            let blurred = try ImageProcessors.GaussianBlur(sigma: sigma).process(image)
            #expect(blurred.size == image.size && blurred.alphaMode == .opaque)
            #expect(blurred[40, 40].r < 255 && blurred[40, 40].r >= blurred[43, 40].r)
        }

        @Test func blurOfZeroOrNothingIsTheSameImage() throws {
            let image = Bitmap.coordinates(width: 20, height: 10)
            #expect(try ImageProcessors.GaussianBlur(sigma: 0).process(image) == image)
            #expect(try ImageProcessors.GaussianBlur(sigma: -1).process(image) == image)
            #expect(try ImageProcessors.GaussianBlur(sigma: .nan).process(image) == image)
            // A flat image stays flat whatever the sigma (edges repeat, weights sum to 1).
            let flat = Bitmap(width: 30, height: 7, fill: RGBA(90, 120, 200))
            #expect(try ImageProcessors.GaussianBlur(sigma: 100).process(flat) == flat)
            #expect(try ImageProcessors.GaussianBlur(sigma: 1).process(flat) == flat)
        }

        /// Transparent pixels' colour does not bleed into the opaque ones (premultiplied filtering).
        @Test func blurDoesNotBleedTransparentColour() throws {
            var image = Bitmap(width: 20, height: 20, fill: RGBA(0, 255, 0, 0))  // green, invisible
            for y in 0..<20 { for x in 0..<10 { image[x, y] = RGBA(255, 0, 0, 255) } }
            let blurred = try ImageProcessors.GaussianBlur(sigma: 2).process(image)
            #expect(blurred.alphaMode == .straight)
            let edge = blurred[9, 10]
            #expect(edge.a < 255 && edge.a > 100)
            #expect(edge.g < 3 && edge.r > 250, "\(edge)")
        }

        /// A soft edge gets steeper: the dark side darker, the light side lighter; flat areas stay.
        @Test func sharpenSteepensEdgesAndLeavesFlatAreas() throws {
            var image = Bitmap(width: 40, height: 8, fill: RGBA(60, 60, 60))
            for y in 0..<8 { for x in 20..<40 { image[x, y] = RGBA(180, 180, 180) } }
            let soft = try ImageProcessors.GaussianBlur(sigma: 1.5).process(image)
            let sharp = try ImageProcessors.Sharpen(sigma: 1.5).process(soft)
            #expect(sharp[18, 4].r < soft[18, 4].r)
            #expect(sharp[21, 4].r > soft[21, 4].r)
            #expect(sharp[2, 4] == soft[2, 4] && sharp[37, 4] == soft[37, 4])
            #expect(try ImageProcessors.Sharpen(sigma: 0).process(image) == image)
        }

        @Test(arguments: [(90, 1), (180, 2), (270, 3), (-90, 3), (360, 0), (450, 1)])
        func rotationTurnsClockwise(degrees: Int, turns: Int) throws {
            let image = Bitmap.coordinates(width: 5, height: 3)
            let rotated = try ImageProcessors.Rotate(degrees: degrees).process(image)
            #expect(ImageProcessors.Rotate(degrees: degrees).quarterTurns == turns)
            switch turns {
            case 1:
                #expect(rotated.size == PixelSize(width: 3, height: 5))
                #expect(rotated[2, 0] == image[0, 0], "the top-left corner goes to the top-right")
                #expect(rotated[0, 4] == image[4, 2])
            case 2:
                #expect(rotated.size == image.size && rotated[4, 2] == image[0, 0])
            case 3:
                #expect(rotated.size == PixelSize(width: 3, height: 5))
                #expect(rotated[0, 4] == image[0, 0], "the top-left corner goes to the bottom-left")
            default:
                #expect(rotated == image)
            }
            // Four quarter turns are the identity.
            var turned = image
            for _ in 0..<4 { turned = try ImageProcessors.Rotate(degrees: 90).process(turned) }
            #expect(turned == image)
        }

        @Test func paddingPlacesTheImageOnAFilledCanvas() throws {
            let image = Bitmap.coordinates(width: 4, height: 3)
            let padded = try ImageProcessors.Padding(top: 1, right: 2, bottom: 3, left: 4, color: RGBA(9, 8, 7)).process(image)
            #expect(padded.size == PixelSize(width: 10, height: 7) && padded.alphaMode == .opaque)
            #expect(padded[4, 1] == image[0, 0] && padded[7, 3] == image[3, 2])
            #expect(padded[0, 0] == RGBA(9, 8, 7) && padded[9, 6] == RGBA(9, 8, 7) && padded[8, 2] == RGBA(9, 8, 7))
            let clear = try ImageProcessors.Padding(top: 2, right: 0, bottom: 0, left: 0).process(image)
            #expect(clear.alphaMode == .straight && clear[0, 0].a == 0 && clear[0, 2] == image[0, 0])
            #expect(try ImageProcessors.Padding(top: 0, right: 0, bottom: 0, left: 0).process(image) == image)
        }

        @Test func paddingRefusesNegativeSidesAndHugeCanvases() {
            let image = Bitmap(width: 2, height: 2, fill: RGBA(1, 2, 3))
            let negative = processingFailure { _ = try ImageProcessors.Padding(top: -1, right: 0, bottom: 0, left: 0).process(image) }
            #expect(negative?.reason.contains("negative") == true)
            let huge = processingFailure {
                _ = try ImageProcessors.Padding(top: Int.max, right: 0, bottom: Int.max, left: 0).process(image)
            }
            #expect(huge?.reason.contains("maximumOutputPixelCount") == true)
            let large = processingFailure {
                _ = try ImageProcessors.Padding(top: 0, right: 0, bottom: 0, left: 100, maximumOutputPixelCount: 100).process(image)
            }
            #expect(large != nil)
        }
    }
}
