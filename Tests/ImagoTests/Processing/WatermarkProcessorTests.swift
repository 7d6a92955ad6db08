import Testing

@testable import Imago

extension ProcessingTests {
    /// `ImageProcessors.Watermark`: "over" compositing in 8-bit sRGB, premultiplied arithmetic.
    @Suite struct WatermarkProcessorTests {
        static let red = RGBA(255, 0, 0)

        @Test func anOpaqueMarkReplacesThePixelsItCovers() throws {
            let image = Bitmap(width: 10, height: 8, fill: RGBA(0, 0, 255))
            let mark = Bitmap(width: 3, height: 2, fill: Self.red)
            let result = try ImageProcessors.Watermark(image: mark, placement: .at(x: 4, y: 5)).process(image)
            #expect(result.alphaMode == .opaque)
            for y in 0..<8 {
                for x in 0..<10 {
                    let covered = (4..<7).contains(x) && (5..<7).contains(y)
                    #expect(result[x, y] == (covered ? Self.red : RGBA(0, 0, 255)), "\(x),\(y)")
                }
            }
        }

        @Test func theOpacityWeighsTheMarksAlpha() throws {
            let image = Bitmap(width: 2, height: 2, fill: RGBA(255, 255, 255))
            let half = try ImageProcessors.Watermark(image: Bitmap(width: 2, height: 2, fill: Self.red), opacity: 0.5).process(image)
            #expect(half[0, 0] == RGBA(255, 128, 128))
            // A mark at alpha 128 and opacity 0.5: a quarter of its colour.
            let translucent = try ImageProcessors.Watermark(image: Bitmap(width: 2, height: 2, fill: RGBA(255, 0, 0, 128)), opacity: 0.5)
                .process(image)
            #expect(translucent[1, 1] == RGBA(255, 191, 191))
            #expect(try ImageProcessors.Watermark(image: Bitmap(width: 2, height: 2, fill: Self.red), opacity: 0).process(image) == image)
        }

        @Test func aTranslucentImageGetsTheAlphaBothMake() throws {
            // Red at alpha 0.5 over transparent: red at alpha 0.5 (straight), (128, 0, 0, 128) premultiplied.
            var straight = Bitmap(width: 1, height: 1, fill: RGBA(0, 0, 0, 0))
            let mark = Bitmap(width: 1, height: 1, fill: Self.red)
            #expect(try ImageProcessors.Watermark(image: mark, opacity: 0.5).process(straight)[0, 0] == RGBA(255, 0, 0, 128))
            straight.alphaMode = .premultiplied
            let premultiplied = try ImageProcessors.Watermark(image: mark, opacity: 0.5).process(straight)
            #expect(premultiplied[0, 0] == RGBA(128, 0, 0, 128) && premultiplied.alphaMode == .premultiplied)
            // Blue at alpha 0.5 under red at 0.5: alpha 0.75, colour (2/3 red, 1/3 blue).
            let blue = Bitmap(width: 1, height: 1, alphaMode: .straight, pixels: [0, 0, 255, 128])
            #expect(try ImageProcessors.Watermark(image: mark, opacity: 0.5).process(blue)[0, 0] == RGBA(170, 0, 85, 192))
        }

        @Test func aMarkOverTheEdgeIsCut() throws {
            let image = Bitmap(width: 4, height: 4, fill: RGBA(0, 0, 0))
            let result = try ImageProcessors.Watermark(image: Bitmap(width: 3, height: 3, fill: Self.red), placement: .at(x: -2, y: 3))
                .process(image)
            #expect(result[0, 3] == Self.red && result[1, 3] == RGBA(0, 0, 0) && result[0, 2] == RGBA(0, 0, 0))
            let outside = try ImageProcessors.Watermark(image: Bitmap(width: 3, height: 3, fill: Self.red), placement: .at(x: 4, y: 0))
            #expect(try outside.process(image) == image)
            let far = ImageProcessors.Watermark(image: Bitmap(width: 3, height: 3, fill: Self.red), placement: .at(x: Int.max - 1, y: Int.min))
            #expect(try far.process(image) == image)
        }

        @Test func tilesAreCentred() throws {
            // A 4-pixel tile over 10 pixels: 3 copies (odd), 12 pixels, 1 cut on each side.
            var tile = Bitmap(width: 4, height: 1, fill: RGBA(0, 0, 0))
            for x in 0..<4 { tile[x, 0] = RGBA(UInt8(x * 60), 0, 0) }
            let result = try ImageProcessors.Watermark(image: tile, placement: .tiled()).process(Bitmap(width: 10, height: 1, fill: RGBA(9, 9, 9)))
            #expect((0..<10).map { Int(result[$0, 0].r) } == [60, 120, 180, 0, 60, 120, 180, 0, 60, 120])
        }

        @Test func tilesAreSpaced() throws {
            // A 2-pixel mark and 3 pixels of space (1 before it, 2 after): 5-pixel tiles, 3 of them
            // over 11 pixels (15, 2 cut on each side), so the image starts on the mark's second pixel.
            var tile = Bitmap(width: 2, height: 1, fill: RGBA(0, 0, 0))
            tile[1, 0] = RGBA(100, 0, 0)
            let result = try ImageProcessors.Watermark(image: tile, placement: .tiled(spacingX: 3, spacingY: 0))
                .process(Bitmap(width: 11, height: 1, fill: RGBA(9, 9, 9)))
            #expect((0..<11).map { Int(result[$0, 0].r) } == [100, 9, 9, 9, 0, 100, 9, 9, 9, 0, 100])
            let huge = try ImageProcessors.Watermark(image: tile, placement: .tiled(spacingX: Int.max, spacingY: Int.max))
                .process(Bitmap(width: 11, height: 1, fill: RGBA(9, 9, 9)))
            // Spacing past any image (here clamped to 10^9): one copy, centred.
            #expect((0..<11).map { Int(huge[$0, 0].r) } == [9, 9, 9, 9, 9, 0, 100, 9, 9, 9, 9])
        }

        @Test func theIdentifierNamesTheImageAndTheParameters() {
            let mark = Bitmap(width: 2, height: 2, fill: Self.red)
            let identifiers = [
                ImageProcessors.Watermark(image: mark), ImageProcessors.Watermark(image: mark, opacity: 0.5),
                ImageProcessors.Watermark(image: mark, placement: .tiled()), ImageProcessors.Watermark(image: mark, placement: .at(x: 1, y: 0)),
                ImageProcessors.Watermark(image: mark, placement: .tiled(spacingX: 1, spacingY: 0)),
                ImageProcessors.Watermark(image: Bitmap(width: 2, height: 2, fill: RGBA(0, 255, 0))),
            ].map(\.identifier)
            #expect(Set(identifiers).count == identifiers.count)
            #expect(ImageProcessors.Watermark(image: mark).identifier == ImageProcessors.Watermark(image: mark).identifier)
            #expect(ImageProcessors.Watermark(image: mark, imageIdentifier: "logo").identifier == "watermark(logo,1.0,at(0,0))")
        }
    }
}
