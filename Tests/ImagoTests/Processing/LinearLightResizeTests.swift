import Imago
import Testing

extension ProcessingTests {
    /// `ImageProcessors.Resize(linearLight: true)`: the filter in linear light, as libvips'
    /// `thumbnail --linear` and imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE` scale.
    @Suite struct LinearLightResizeTests {
        /// One-pixel columns of black and white.
        static func stripes(width: Int = 64, height: Int = 64) -> Bitmap {
            var pixels = [UInt8](repeating: 255, count: width * height * 4)
            for y in 0..<height {
                for x in stride(from: 0, to: width, by: 2) {
                    let index = (y * width + x) * 4
                    pixels[index] = 0
                    pixels[index + 1] = 0
                    pixels[index + 2] = 0
                }
            }
            return Bitmap(width: width, height: height, alphaMode: .opaque, pixels: pixels)
        }

        static func resize(_ bitmap: Bitmap, to side: Int, linearLight: Bool) throws -> Bitmap {
            try ImageProcessors.Resize(
                size: PixelSize(width: side, height: side), contentMode: .aspectFit, linearLight: linearLight
            ).process(bitmap)
        }

        @Test func blackAndWhiteLinesShrinkToTheGreyOfHalfTheLight() throws {
            // Half the light of white is 0.5 linear: sRGB 187.5. On the stored values, 127.5.
            let linear = try Self.resize(Self.stripes(), to: 16, linearLight: true)
            let stored = try Self.resize(Self.stripes(), to: 16, linearLight: false)
            for y in 2..<14 {
                for x in 2..<14 {
                    #expect((186...189).contains(linear[x, y].r), "\(x),\(y): \(linear[x, y])")
                    #expect(linear[x, y].r == linear[x, y].g && linear[x, y].g == linear[x, y].b)
                    #expect((126...129).contains(stored[x, y].r), "\(x),\(y): \(stored[x, y])")
                }
            }
        }

        /// Every stored value comes back exactly from linear light where nothing is mixed (the
        /// round trip through ``SRGBTransfer``'s tables loses nothing), in every alpha mode.
        @Test(arguments: [Bitmap.AlphaMode.opaque, .straight, .premultiplied])
        func aColumnOfOneValueKeepsItExactly(alphaMode: Bitmap.AlphaMode) throws {
            let alpha: UInt8 = alphaMode == .opaque ? 255 : 200
            var pixels = [UInt8](repeating: 0, count: 256 * 8 * 4)
            for y in 0..<8 {
                for value in 0..<256 {
                    // Premultiplied: each colour times alpha, rounded.
                    func stored(_ value: Int) -> UInt8 {
                        UInt8(alphaMode == .premultiplied ? (value * Int(alpha) + 127) / 255 : value)
                    }
                    let index = (y * 256 + value) * 4
                    pixels.replaceSubrange(index..<index + 4, with: [stored(value), stored(value), stored(255 - value), alpha])
                }
            }
            let source = Bitmap(width: 256, height: 8, alphaMode: alphaMode, pixels: pixels)
            // Only the columns are scaled (8 rows to 2): each output pixel mixes one value.
            let result = try ImageProcessors.Resize(
                size: PixelSize(width: 256, height: 2), contentMode: .aspectFill, upscale: false, crop: true, linearLight: true
            ).process(source)
            try #require(result.width == 256 && result.height == 2 && result.alphaMode == alphaMode)
            for y in 0..<2 {
                for x in 0..<256 {
                    let expected = source[x, 0]
                    #expect(result[x, y] == expected, "column \(x): \(result[x, y]) for \(expected)")
                }
            }
        }

        @Test func transparentPixelsStayTransparentAndLendNoColour() throws {
            // Left half transparent (its meaningless colour red), right half opaque blue.
            var bitmap = Bitmap(width: 32, height: 8, fill: RGBA(0, 0, 255, 255))
            for y in 0..<8 { for x in 0..<16 { bitmap[x, y] = RGBA(255, 0, 0, 0) } }
            bitmap = Bitmap(width: 32, height: 8, alphaMode: .straight, pixels: bitmap.pixels)
            let result = try Self.resize(bitmap, to: 16, linearLight: true)
            #expect(result[0, 2] == RGBA(0, 0, 0, 0))
            for y in 0..<4 {
                for x in 0..<8 where result[x, y].a > 0 {
                    #expect(result[x, y].r == 0 && result[x, y].b == 255, "\(x),\(y): \(result[x, y])")
                }
            }
        }

        @Test func theIdentifierNamesLinearLight() {
            let size = PixelSize(width: 10, height: 10)
            let linear = ImageProcessors.Resize(size: size, contentMode: .aspectFit, linearLight: true)
            let stored = ImageProcessors.Resize(size: size, contentMode: .aspectFit)
            #expect(linear.identifier == "resize(10x10,fit,linear)" && stored.identifier == "resize(10x10,fit)")
            #expect(linear != stored && !stored.linearLight)
        }
    }
}
