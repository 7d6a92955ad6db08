#if os(Linux)
import Foundation
import Imago
import Testing

@testable import ImagoServer

/// imgproxy's resizing types `fill-down` and `auto`, and `min-width`, `min-height`, `zoom`,
/// `extend_aspect_ratio`, `max_result_dimension`, `flip`, `auto_rotate` and `pixelate`: what each
/// reads, what it does to the output, and the 400 a bad argument gets.
@Suite struct ProxyResizeOptionsTests {
    static func size(_ text: String, source: (Int, Int) = (200, 100), maximum: Int = 4096) throws -> PixelSize {
        try ProxyGeometryTests.geometry(text, source: source, maximum: maximum).canvasSize
    }

    static func render(_ text: String, _ source: Bitmap) throws -> Bitmap {
        let options = try ProcessingOptionsTests.options(text)
        let geometry = ProxyGeometry(
            source: PixelSize(width: source.width, height: source.height), options: options, maximumDimension: 4096)
        return try ProxyRenderer(geometry: geometry, options: options).render(source)
    }

    @Test func readsTheArguments() throws {
        #expect(try ProcessingOptionsTests.options("rt:fill-down").resizingType == .fillDown)
        #expect(try ProcessingOptionsTests.options("rs:auto:10:10").resizingType == .auto)
        #expect(try ProcessingOptionsTests.options("resizing_type:auto").resizingType == .auto)
        let minimum = try ProcessingOptionsTests.options("mw:120/min-height:80")
        #expect(minimum.minimumWidth == 120 && minimum.minimumHeight == 80)
        let one = try ProcessingOptionsTests.options("z:1.5")
        #expect(one.zoomWidth == 1.5 && one.zoomHeight == 1.5, "one value: both sides")
        let two = try ProcessingOptionsTests.options("zoom:2:0.5")
        #expect(two.zoomWidth == 2 && two.zoomHeight == 0.5)
        #expect(try ProcessingOptionsTests.options("exar:1:no").extendAspectRatio?.gravity == .init(.north))
        #expect(try ProcessingOptionsTests.options("extend_ar:1").extendAspectRatio?.gravity == .center)
        #expect(try ProcessingOptionsTests.options("extend_aspect_ratio:0").extendAspectRatio == nil)
        #expect(try ProcessingOptionsTests.options("mrd:300").maximumResultDimension == 300)
        #expect(try ProcessingOptionsTests.options("max_result_dimension:0").maximumResultDimension == nil)
        let flips = try ProcessingOptionsTests.options("fl:1")
        #expect(flips.flipHorizontally && !flips.flipVertically)
        let vertical = try ProcessingOptionsTests.options("flip::1")
        #expect(!vertical.flipHorizontally && vertical.flipVertically)
        #expect(try ProcessingOptionsTests.options("ar:1").autoRotate == true)
        #expect(try ProcessingOptionsTests.options("pix:8").pixelateSize == 8)
        #expect(try ProcessingOptionsTests.options("pixelate:1").pixelateSize == nil, "1: none")
        // Each changes the canonical text, so the cache keeps their outputs apart.
        let plain = try ProcessingOptionsTests.options("w:10").canonical
        for text in ["w:10/rt:fill-down", "w:10/mw:20", "w:10/z:2", "w:10/exar:1", "w:10/mrd:50", "w:10/fl:1", "w:10/pix:4"] {
            #expect(try ProcessingOptionsTests.options(text).canonical != plain, "\(text)")
        }
    }

    @Test(arguments: [
        "rt:cover", "rs:fill_down:10:10", "mw:-1", "mh:abc", "mw:100001", "z:0", "z:-1", "z:101", "z:1:2:3", "zoom:x",
        "exar:2", "exar:1:sm", "mrd:abc", "mrd:1.5", "fl:x", "fl:1:1:1", "ar:0", "ar:yes", "pix:-3", "pix:1.5",
    ])
    func refusesBadArguments(text: String) throws {
        try ProcessingOptionsTests.expectRefusalNamingTheOption(text)
    }

    @Test func aBadArgumentIsA400FromTheServer() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            for text in ["rt:cover", "z:0", "mw:-5", "exar:1:sm", "fl:2", "ar:0", "mrd:x", "pix:-1"] {
                let response = await proxy.respond(path: ServerTests.path(text, origin.url(for: "/q.png")))
                #expect(response.status == 400, "\(text)")
                #expect(String(decoding: response.body, as: UTF8.self).contains("bad_options"), "\(text)")
            }
        }
    }

    /// fill-down fills the box when it can, else cuts the box's shape at the image's own scale.
    @Test func fillDownNeverEnlarges() throws {
        #expect(try Self.size("rs:fill-down:50:50") == PixelSize(width: 50, height: 50))
        #expect(try Self.size("rs:fill-down:300:300") == PixelSize(width: 100, height: 100))
        #expect(try Self.size("rs:fill:300:300") == PixelSize(width: 200, height: 100), "fill keeps the whole image")
        #expect(try Self.size("rs:fill-down:300:300:1") == PixelSize(width: 300, height: 300), "enlarged: as fill")
    }

    /// auto: fill when source and box have the same orientation, else fit.
    @Test func autoPicksFillOrFit() throws {
        #expect(try Self.size("rs:auto:50:40") == PixelSize(width: 50, height: 40), "both landscape: fill")
        #expect(try Self.size("rs:auto:40:50") == PixelSize(width: 40, height: 20), "landscape into portrait: fit")
        #expect(try Self.size("rs:auto:40:50", source: (100, 200)) == PixelSize(width: 40, height: 50), "both portrait: fill")
    }

    @Test func minimumSidesWinOverFit() throws {
        #expect(try Self.size("rs:fit:50:50") == PixelSize(width: 50, height: 25))
        #expect(try Self.size("rs:fit:50:50/mh:50") == PixelSize(width: 50, height: 50), "taller, then cut to the box")
        // Scaled up to the minimum, then cut to the side that was asked (as imgproxy).
        let tall = try ProxyGeometryTests.geometry("w:50/mh:50", source: (200, 100))
        #expect(tall.scaledSize == PixelSize(width: 100, height: 50) && tall.canvasSize == PixelSize(width: 50, height: 50))
        let wide = try ProxyGeometryTests.geometry("h:20/mw:100", source: (200, 100))
        #expect(wide.scaledSize == PixelSize(width: 100, height: 50) && wide.canvasSize == PixelSize(width: 100, height: 20))
        #expect(try Self.size("mw:150") == PixelSize(width: 200, height: 100), "wide enough already: as it is")
        #expect(try Self.size("mw:300") == PixelSize(width: 300, height: 150), "a minimum enlarges, even without el")
    }

    @Test func zoomMultipliesAfterTheResize() throws {
        #expect(try Self.size("rs:fit:50:50/z:2") == PixelSize(width: 100, height: 50))
        #expect(try Self.size("rs:fit:50:50/z:2:1") == PixelSize(width: 100, height: 25))
        #expect(try Self.size("z:0.5") == PixelSize(width: 100, height: 50), "without a size: of the source")
        #expect(try Self.size("z:3") == PixelSize(width: 200, height: 100), "never enlarged without el")
    }

    @Test func extendAspectRatioAddsTheLeastCanvas() throws {
        #expect(try Self.size("rs:fit:300:300/exar:1") == PixelSize(width: 200, height: 200))
        #expect(try Self.size("rs:fit:50:50/exar:1") == PixelSize(width: 50, height: 50))
        let north = try ProxyGeometryTests.geometry("rs:fit:300:300/exar:1:no", source: (200, 100))
        #expect(north.contentOrigin == ProxyGeometry.Point(x: 0, y: 0))
        let centred = try ProxyGeometryTests.geometry("rs:fit:300:300/exar:1", source: (200, 100))
        #expect(centred.contentOrigin == ProxyGeometry.Point(x: 0, y: 50))
    }

    /// max_result_dimension lowers image, extension and padding together; never above the server's.
    @Test func maximumResultDimensionBoundsTheWholeResult() throws {
        #expect(try Self.size("mrd:50") == PixelSize(width: 50, height: 25))
        #expect(try Self.size("rs:fit:100:100/pd:100:200:300:400/mrd:200") == PixelSize(width: 200, height: 129))
        #expect(try Self.size("mrd:5000", source: (1000, 500), maximum: 256) == PixelSize(width: 256, height: 128))
    }

    /// Every combination of the new options with sizes, extension and padding: the output is the
    /// plan's canvas and within the bound, whatever the source's shape.
    @Test func everyCombinationStaysWithinTheBound() throws {
        let sizes = ["rs:fill-down:90:30", "rs:auto:30:90", "rs:fit:0:40:1", "rs:force:70:0", "rs:fill:120:120:1:1:soea"]
        let extras = ["mw:150", "mh:150/z:3:0.5", "exar:1:we/pd:5:9", "mrd:40/pd:30", "z:0.2/ex:1/dpr:3", "fl:1:1/pix:7/rot:270"]
        for (width, height) in [(200, 100), (7, 300), (1, 1)] {
            let source = Bitmap(width: width, height: height, fill: RGBA(40, 80, 120))
            for size in sizes {
                for extra in extras {
                    let options = try ProcessingOptionsTests.options("\(size)/\(extra)")
                    let geometry = ProxyGeometry(source: PixelSize(width: width, height: height), options: options, maximumDimension: 100)
                    let output = try ProxyRenderer(geometry: geometry, options: options).render(source)
                    let text = "\(size)/\(extra) on \(width)x\(height)"
                    #expect(PixelSize(width: output.width, height: output.height) == geometry.canvasSize, "\(text)")
                    #expect(output.width <= 100 && output.height <= 100, "\(text): \(output.width)x\(output.height)")
                }
            }
        }
    }

    @Test func flipMirrorsAfterTheRotation() throws {
        let source = ProxyOptionsTests.quadrants()
        let horizontal = try Self.render("fl:1", source)
        #expect(ProxyOptionsTests.near(horizontal[10, 10], ProxyOptionsTests.green))
        #expect(ProxyOptionsTests.near(horizontal[390, 290], ProxyOptionsTests.blue))
        let vertical = try Self.render("fl:0:1", source)
        #expect(ProxyOptionsTests.near(vertical[10, 10], ProxyOptionsTests.blue))
        let both = try Self.render("fl:1:1", source)
        #expect(ProxyOptionsTests.near(both[10, 10], ProxyOptionsTests.yellow))
        // Turned first (red to the top right), then mirrored (red back to the top left).
        let turned = try Self.render("rot:90/fl:1", source)
        #expect(turned.width == 300 && ProxyOptionsTests.near(turned[10, 10], ProxyOptionsTests.red))
        #expect(ProxyOptionsTests.near(turned[290, 10], ProxyOptionsTests.blue))
        // The crop's gravity sees the mirrored image.
        let cropped = try Self.render("fl:1/c:100:100:nowe", source)
        #expect(cropped.allPixels.allSatisfy { ProxyOptionsTests.near($0, ProxyOptionsTests.green) })
    }

    @Test func autoRotateOnIsTheDefault() throws {
        #expect(try ProcessingOptionsTests.options("ar:1/w:10").canonical == ProcessingOptionsTests.options("w:10").canonical)
    }

    @Test func pixelateMakesBlocksOfTheMean() throws {
        var stripes = Bitmap(width: 8, height: 8, fill: RGBA(0, 0, 0))
        for y in 0..<8 {
            for x in 0..<8 where x % 2 == 0 { stripes[x, y] = RGBA(200, 100, 50) }
        }
        let blocks = try Self.render("pix:4", stripes)
        #expect(blocks.width == 8 && blocks.height == 8)
        #expect(blocks.allPixels.allSatisfy { ProxyOptionsTests.near($0, RGBA(100, 50, 25), tolerance: 1) })
        // An edge block is completed by the mirrored image, as libvips extends it: 5 wide in
        // blocks of 4, the second block reads columns 4 | 4 3 2 (bright, bright, dark, bright).
        let narrow = try Self.render("pix:4", try ImageProcessors.Crop(x: 0, y: 0, width: 5, height: 8).process(stripes))
        #expect(ProxyOptionsTests.near(narrow[4, 0], RGBA(150, 75, 38), tolerance: 1), "\(narrow[4, 0])")
        let plain = try Self.render("w:8", stripes)
        #expect(ProxyOptionsTests.near(plain[1, 1], RGBA(0, 0, 0), tolerance: 1))
    }
}

extension Bitmap {
    /// Every pixel, row by row.
    fileprivate var allPixels: [RGBA] {
        (0..<height).flatMap { y in (0..<width).map { x in self[x, y] } }
    }
}
#endif
