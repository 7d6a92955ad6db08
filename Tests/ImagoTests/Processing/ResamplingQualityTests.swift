import Imago
import Testing

extension ProcessingTests {
    /// What the resampling must get right, checked on synthetic images whose correct answer is known.
    @Suite struct ResamplingQualityTests {
        @Test(
            "a fine checkerboard shrunk to 1/8 becomes even mid-grey, not aliased stripes",
            arguments: [
                PixelSize(width: 8, height: 8), PixelSize(width: 7, height: 9),
            ])
        func checkerboardBecomesGrey(_ target: PixelSize) throws {
            let board = Bitmap.checkerboard(width: 64, height: 64, cell: 2)
            let resized = try ImageProcessors.Resize(size: target, contentMode: .aspectFill, crop: true).process(board)
            #expect(resized.size == target)
            for pixel in resized.allPixels {
                #expect(pixel.r == pixel.g && pixel.g == pixel.b && pixel.a == 255)
                #expect((120...135).contains(pixel.r), "\(pixel) is not mid-grey")
            }
        }

        @Test(
            "a solid colour stays that colour, shrunk or enlarged",
            arguments: [
                RGBA(200, 100, 50), RGBA(0, 0, 0), RGBA(255, 255, 255), RGBA(200, 100, 50, 128), RGBA(13, 250, 77, 3),
            ])
        func solidColourIsKept(_ color: RGBA) throws {
            let image = Bitmap(width: 50, height: 30, fill: color)
            let targets = [
                PixelSize(width: 17, height: 11), PixelSize(width: 123, height: 45), PixelSize(width: 50, height: 7),
            ]
            for target in targets {
                let resized = try ImageProcessors.Resize(size: target, contentMode: .aspectFill, upscale: true, crop: true)
                    .process(image)
                #expect(resized.size == target)
                #expect(resized.alphaMode == image.alphaMode)
                for pixel in resized.allPixels {
                    let same =
                        close(pixel.r, color.r) && close(pixel.g, color.g) && close(pixel.b, color.b)
                        && close(pixel.a, color.a)
                    #expect(same, "\(pixel) in \(target), expected \(color)")
                }
            }
        }

        @Test(
            "transparent surroundings leave no dark fringe",
            arguments: [
                PixelSize(width: 20, height: 20), PixelSize(width: 7, height: 7), PixelSize(width: 150, height: 150),
            ])
        func noDarkFringe(_ target: PixelSize) throws {
            // The transparent pixels are black with alpha 0: filtering straight colour would darken
            // every edge pixel; filtering premultiplied colour must not.
            let image = Bitmap.square(RGBA(255, 0, 0), side: 30, onTransparentCanvas: 64)
            let resized = try ImageProcessors.Resize(size: target, contentMode: .aspectFit, upscale: true).process(image)
            #expect(resized.alphaMode == .straight)
            let visible = resized.allPixels.filter { $0.a > 0 }
            #expect(visible.contains { $0.a < 255 }, "the edge should be partly transparent")
            for pixel in visible {
                #expect(pixel.r >= 250 && pixel.g <= 5 && pixel.b <= 5, "\(pixel) is not red")
            }
        }

        @Test func premultipliedStaysPremultiplied() throws {
            let image = Bitmap.square(RGBA(255, 0, 0), side: 30, onTransparentCanvas: 64, alphaMode: .premultiplied)
            let resized = try ThumbnailProcessor(maximumPixelSize: 20).process(image)
            #expect(resized.alphaMode == .premultiplied)
            for pixel in resized.allPixels {
                #expect(pixel.r <= pixel.a && pixel.g == 0 && pixel.b == 0, "\(pixel)")
                #expect(close(pixel.r, pixel.a), "\(pixel): colour should equal alpha for premultiplied red")
            }
        }

        @Test func shrinkingKeepsAGradientInOrder() throws {
            // A horizontal ramp stays a ramp: no ringing strong enough to reverse it.
            var ramp = Bitmap(width: 256, height: 32, fill: RGBA(0, 0, 0))
            for y in 0..<32 {
                for x in 0..<256 { ramp[x, y] = RGBA(UInt8(x), UInt8(x), UInt8(x)) }
            }
            let resized = try ImageProcessors.Resize(size: PixelSize(width: 32, height: 4), contentMode: .aspectFit).process(
                ramp)
            #expect(resized.size == PixelSize(width: 32, height: 4))
            let row = (0..<32).map { Int(resized[$0, 2].r) }
            #expect(zip(row, row.dropFirst()).allSatisfy { $0 < $1 }, "\(row)")
            #expect(close(UInt8(row[16]), 132, within: 3), "pixel 16 covers source 128..<136")
        }

        @Test func enlargingInterpolates() throws {
            // Two pixels, black and white, doubled: the new pixels step between them in order.
            var pair = Bitmap(width: 2, height: 1, fill: RGBA(0, 0, 0))
            pair[1, 0] = RGBA(255, 255, 255)
            let resized = try ImageProcessors.Resize(
                size: PixelSize(width: 8, height: 4), contentMode: .aspectFit, upscale: true
            ).process(pair)
            #expect(resized.size == PixelSize(width: 8, height: 4))
            let row = (0..<8).map { Int(resized[$0, 1].r) }
            #expect(row.first == 0 && row.last == 255, "\(row)")
            #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 }, "\(row)")
        }
    }
}
