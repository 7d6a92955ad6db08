import Testing

@testable import Imago

extension ProcessingTests {
    /// `ImageProcessors.Trim`: libvips' `find_trim` as imgproxy calls it.
    @Suite struct TrimProcessorTests {
        /// `width` x `height` of `border`, with `content` filling the rectangle given.
        static func framed(
            width: Int = 40, height: Int = 30, border: RGBA = RGBA(255, 255, 255), content: RGBA = RGBA(0, 0, 0),
            rect: (x: Int, y: Int, width: Int, height: Int) = (5, 3, 20, 10)
        ) -> Bitmap {
            var bitmap = Bitmap(width: width, height: height, fill: border)
            for y in rect.y..<(rect.y + rect.height) {
                for x in rect.x..<(rect.x + rect.width) { bitmap[x, y] = content }
            }
            return bitmap
        }

        /// The rectangle `trim` keeps in `image`, as `[x, y, width, height]`.
        static func box(_ trim: ImageProcessors.Trim, _ image: Bitmap) -> [Int]? {
            trim.bounds(in: image).map { [$0.x, $0.y, $0.width, $0.height] }
        }

        @Test func keepsTheContentsBoundingBox() throws {
            let image = Self.framed()
            #expect(Self.box(ImageProcessors.Trim(), image) == [5, 3, 20, 10])
            let trimmed = try ImageProcessors.Trim().process(image)
            #expect(trimmed.width == 20 && trimmed.height == 10)
            #expect(trimmed.allSatisfy(RGBA(0, 0, 0)))
        }

        @Test func theThresholdIsStrict() throws {
            // 20 from the border: content above a threshold of 19, border at 20.
            let image = Self.framed(content: RGBA(235, 255, 255))
            #expect(Self.box(ImageProcessors.Trim(threshold: 19), image) == [5, 3, 20, 10])
            #expect(Self.box(ImageProcessors.Trim(threshold: 20), image) == nil)
        }

        @Test func equalSidesCutTheSmallerMarginOnBoth() throws {
            // Margins: left 5, right 15, top 3, bottom 17.
            let image = Self.framed()
            #expect(Self.box(ImageProcessors.Trim(equalHorizontal: true), image) == [5, 3, 30, 10])
            #expect(Self.box(ImageProcessors.Trim(equalVertical: true), image) == [5, 3, 20, 24])
            let mirrored = Self.framed(rect: (15, 17, 20, 10))  // left 15, right 5, top 17, bottom 3
            #expect(Self.box(ImageProcessors.Trim(equalHorizontal: true, equalVertical: true), mirrored) == [5, 3, 30, 24])
        }

        @Test func aSpeckIsNotContent() throws {
            // One dark pixel: the 3x3 median removes it, as libvips' does.
            var image = Bitmap(width: 30, height: 30, fill: RGBA(255, 255, 255))
            image[12, 7] = RGBA(0, 0, 0)
            #expect(Self.box(ImageProcessors.Trim(), image) == nil)
            #expect(try ImageProcessors.Trim().process(image) == image)
            // A 3x3 block survives it: its middle pixels see five dark pixels or more.
            for y in 7..<10 { for x in 12..<15 { image[x, y] = RGBA(0, 0, 0) } }
            #expect(Self.box(ImageProcessors.Trim(), image) == [12, 7, 3, 3])
        }

        @Test func theColourIsTheTopLeftPixelsUnlessGiven() throws {
            let image = Self.framed(border: RGBA(0, 0, 255), content: RGBA(255, 255, 0))
            #expect(Self.box(ImageProcessors.Trim(), image) == [5, 3, 20, 10])
            // Given as the content's colour, the border is what differs: nothing is cut.
            #expect(Self.box(ImageProcessors.Trim(color: RGBA(255, 255, 0)), image) == [0, 0, 40, 30])
        }

        @Test func transparencyCountsAsMagenta() throws {
            var image = Self.framed(border: RGBA(0, 0, 0, 0), content: RGBA(10, 200, 10))
            image.alphaMode = .straight
            #expect(Self.box(ImageProcessors.Trim(color: RGBA(255, 0, 255)), image) == [5, 3, 20, 10])
            #expect(Self.box(ImageProcessors.Trim(), image) == [5, 3, 20, 10])
            image.alphaMode = .premultiplied
            #expect(Self.box(ImageProcessors.Trim(color: RGBA(255, 0, 255)), image) == [5, 3, 20, 10])
        }

        @Test func anImageOfOneColourIsLeftAsItIs() throws {
            let image = Bitmap(width: 7, height: 5, fill: RGBA(40, 50, 60))
            #expect(try ImageProcessors.Trim().process(image) == image)
            #expect(Self.box(ImageProcessors.Trim(), Bitmap(width: 0, height: 0)) == nil)
        }

        @Test func everyFrameIsCutAsTheFirst() throws {
            let first = Self.framed(width: 60, height: 40)
            var container = try ImageContainer(bitmap: first, format: .gif)
            container.frames = try [first, Bitmap(width: 60, height: 40, fill: RGBA(9, 9, 9))].map {
                try AnimationFrame(bitmap: $0, duration: .milliseconds(50))
            }
            let trimmed = try ImageProcessors.Trim().process(container)
            #expect(trimmed.frames.count == 2)
            for frame in trimmed.frames {
                let bitmap = try #require(frame.image.bitmap)
                #expect(bitmap.width == 20 && bitmap.height == 10)
            }
            #expect(trimmed.frames.map(\.duration) == [.milliseconds(50), .milliseconds(50)])
        }

        @Test func theIdentifierNamesEveryParameter() {
            let identifiers = [
                ImageProcessors.Trim(), ImageProcessors.Trim(threshold: 11), ImageProcessors.Trim(color: RGBA(1, 2, 3)),
                ImageProcessors.Trim(equalHorizontal: true), ImageProcessors.Trim(equalVertical: true),
            ].map(\.identifier)
            #expect(Set(identifiers).count == identifiers.count)
            #expect(ImageProcessors.Trim(color: RGBA(255, 0, 170)).identifier == "trim(10.0,#ff00aa,0,0)")
        }
    }
}

extension Bitmap {
    fileprivate func allSatisfy(_ color: RGBA) -> Bool {
        (0..<height).allSatisfy { y in (0..<width).allSatisfy { self[$0, y] == color } }
    }
}
