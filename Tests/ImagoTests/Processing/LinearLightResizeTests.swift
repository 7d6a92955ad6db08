import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

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

        /// Stripes whose pixels are kept in the profile of `file` (a colour fixture).
        static func stripes(keptIn file: String) throws -> ImageContainer {
            let profile = try #require(try ImageDecoder.decode(Fixture.data(file), colorProfileHandling: .keep).colorProfile)
            return try Self.stripes(keptIn: profile)
        }

        static func stripes(keptIn profile: ColorProfile) throws -> ImageContainer {
            var container = try ImageContainer(bitmap: Self.stripes(), format: .png)
            container.colorProfile = profile
            container.colorProfileHandling = .keep
            return container
        }

        static func centre(_ container: ImageContainer, linearLight: Bool = true) throws -> UInt8 {
            let resize = ImageProcessors.Resize(size: PixelSize(width: 16, height: 16), contentMode: .aspectFit, linearLight: linearLight)
            return try resize.process(container).bitmap()[8, 8].r
        }

        /// Linear light undoes sRGB's curve: pixels kept in a profile with another curve are
        /// resampled on their stored values; Display P3's is sRGB's.
        @Test(arguments: [("colour/prophoto.png", false), ("colour/adobergb.png", false), ("colour/displayp3.png", true)])
        func onlyPixelsWithSRGBsCurve(file: String, linear: Bool) throws {
            let container = try Self.stripes(keptIn: file)
            #expect(container.pixelsHaveSRGBTransfer == linear)
            let expected: ClosedRange<UInt8> = linear ? 186...189 : 126...129
            #expect(expected.contains(try Self.centre(container)), "\(file)")
            #expect((126...129).contains(try Self.centre(container, linearLight: false)))
            // Converted to sRGB (the default), the same pixels are resized in linear light.
            var converted = container
            converted.colorProfileHandling = .convertToSRGB
            #expect((186...189).contains(try Self.centre(converted)))
        }

        #if os(Linux)
        @Test func aLinearProfileKeepsItsStoredValues() throws {
            let recipe = ColorProfileBuilder.Recipe(
                points: [0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06], curve: .linear, name: "linear BT.709")
            let profile = try ColorProfileBuilder.profile(recipe).get()
            let container = try Self.stripes(keptIn: profile)
            #expect(!container.pixelsHaveSRGBTransfer)
            #expect((126...129).contains(try Self.centre(container)))
            let srgb = ColorProfileBuilder.Recipe(points: recipe.points, curve: .sRGB, name: "sRGB built")
            #expect(try Self.stripes(keptIn: ColorProfileBuilder.profile(srgb).get()).pixelsHaveSRGBTransfer)
        }
        #endif

        @Test func theIdentifierNamesLinearLight() {
            let size = PixelSize(width: 10, height: 10)
            let linear = ImageProcessors.Resize(size: size, contentMode: .aspectFit, linearLight: true)
            let stored = ImageProcessors.Resize(size: size, contentMode: .aspectFit)
            #expect(linear.identifier == "resize(10x10,fit,linear)" && stored.identifier == "resize(10x10,fit)")
            #expect(linear != stored && !stored.linearLight)
        }
    }
}
