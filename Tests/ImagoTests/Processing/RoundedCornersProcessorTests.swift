import Imago
import Testing

extension ProcessingTests {
    @Suite struct RoundedCornersProcessorTests {
        static let blue = RGBA(20, 40, 200)
        static let image = Bitmap(width: 40, height: 30, fill: blue)

        @Test("corners transparent, edges and centre untouched", arguments: [3, 10, 15, 100])
        func corners(_ radius: Int) throws {
            let rounded = try ImageProcessors.RoundedCorners(radius: radius).process(Self.image)
            #expect(rounded.size == Self.image.size)
            #expect(rounded.alphaMode == .straight)
            for (x, y) in [(0, 0), (39, 0), (0, 29), (39, 29)] {
                #expect(rounded[x, y].a == 0, "corner \(x), \(y)")
            }
            for (x, y) in [(20, 0), (20, 29), (0, 15), (39, 15), (20, 15)] where radius <= 10 {
                #expect(rounded[x, y] == Self.blue, "edge midpoint or centre \(x), \(y)")
            }
            #expect(rounded[20, 15] == Self.blue)
            // Antialiased: some pixels on the curve are partly covered, and keep their colour.
            let partial = rounded.allPixels.filter { $0.a > 0 && $0.a < 255 }
            #expect(!partial.isEmpty)
            #expect(partial.allSatisfy { RGBA($0.r, $0.g, $0.b) == Self.blue })
        }

        @Test func largeRadiusMakesACapsule() throws {
            let rounded = try ImageProcessors.RoundedCorners(radius: 1000).process(Self.image)
            // Radius 15 (half the height): the middle of the short edges is nearly covered (the curve
            // cuts about 2% of that pixel), 10 pixels above it nothing is.
            #expect(rounded[0, 15].a >= 250)
            #expect(rounded[0, 5].a == 0)
            #expect(rounded[20, 0].a == 255)
        }

        @Test func borderIsDrawnInsideTheEdge() throws {
            let red = RGBA(255, 0, 0)
            let processor = ImageProcessors.RoundedCorners(radius: 8, border: .init(width: 2, color: red))
            let rounded = try processor.process(Self.image)
            #expect(rounded.size == Self.image.size)
            for (x, y) in [(20, 0), (20, 1), (20, 29), (20, 28), (0, 15), (1, 15), (39, 15), (38, 15)] {
                #expect(rounded[x, y] == red, "border at \(x), \(y)")
            }
            for (x, y) in [(20, 2), (2, 15), (37, 15), (20, 15)] {
                #expect(rounded[x, y] == Self.blue, "inside at \(x), \(y)")
            }
            #expect(rounded[0, 0].a == 0)
        }

        @Test func premultipliedInputStaysPremultiplied() throws {
            var image = Bitmap(width: 20, height: 20, fill: RGBA(100, 50, 25, 128))
            image.alphaMode = .premultiplied
            let rounded = try ImageProcessors.RoundedCorners(radius: 6).process(image)
            #expect(rounded.alphaMode == .premultiplied)
            #expect(rounded[10, 10] == RGBA(100, 50, 25, 128))
            #expect(rounded[0, 0] == RGBA(0, 0, 0, 0))
            #expect(rounded.allPixels.allSatisfy { $0.r <= $0.a && $0.g <= $0.a && $0.b <= $0.a })
        }

        @Test func translucentImageKeepsItsColourAtTheCorners() throws {
            let image = Bitmap(width: 20, height: 20, fill: RGBA(100, 50, 25, 128))
            let rounded = try ImageProcessors.RoundedCorners(radius: 6).process(image)
            let partial = rounded.allPixels.filter { $0.a > 0 && $0.a < 128 }
            #expect(!partial.isEmpty)
            #expect(
                partial.allSatisfy {
                    close($0.r, 100, within: 2) && close($0.g, 50, within: 2) && close($0.b, 25, within: 2)
                })
        }

        @Test func identifiers() {
            #expect(ImageProcessors.RoundedCorners(radius: 16).identifier == "roundedCorners(16)")
            let bordered = ImageProcessors.RoundedCorners(radius: 16, border: .init(width: 2, color: RGBA(255, 0, 10, 128)))
            #expect(bordered.identifier == "roundedCorners(16,border:2,#ff000a80)")
            let distinct = [
                ImageProcessors.RoundedCorners(radius: 16), ImageProcessors.RoundedCorners(radius: 8), bordered,
                ImageProcessors.RoundedCorners(radius: 16, border: .init(width: 3, color: RGBA(255, 0, 10, 128))),
                ImageProcessors.RoundedCorners(radius: 16, border: .init(width: 2, color: RGBA(255, 0, 10))),
            ]
            #expect(Set(distinct.map(\.identifier)).count == distinct.count)
        }

        @Test("negative sizes are refused", arguments: [(-1, 0), (4, -2)])
        func negativeIsRefused(_ radius: Int, _ borderWidth: Int) throws {
            let processor = ImageProcessors.RoundedCorners(
                radius: radius, border: .init(width: borderWidth, color: RGBA(0, 0, 0)))
            let failure = try #require(processingFailure { _ = try processor.process(Self.image) })
            #expect(failure.reason.contains("is negative"))
        }
    }
}
