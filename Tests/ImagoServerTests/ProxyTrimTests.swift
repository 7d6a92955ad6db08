#if os(Linux)
import Foundation
import Imago
import Testing

@testable import ImagoServer

/// imgproxy's `trim` (`t`) through the proxy: imgproxy's own size cases (`processing/trim_test.go`)
/// on images drawn as its `testdata/trim1.png`, `trim2.png` and `trim3.png` are, the effect on
/// the output end to end, and a 400 for each kind of bad argument.
@Suite struct ProxyTrimTests {
    /// imgproxy's `trim1.png`: 350x250, grey frames 10 pixels wide on the top and left and 20 on
    /// the bottom and right, from white (255) through 204, 153, 102 and 51 to a black 200x100
    /// centre.
    static func frames() -> Bitmap {
        var bitmap = Bitmap(width: 350, height: 250, fill: RGBA(255, 255, 255))
        for (step, level) in [204, 153, 102, 51, 0].enumerated() {
            let inset = 10 * (step + 1)
            for y in inset..<(250 - 2 * inset) {
                for x in inset..<(350 - 2 * inset) {
                    bitmap[x, y] = RGBA(UInt8(level), UInt8(level), UInt8(level))
                }
            }
        }
        return bitmap
    }

    /// imgproxy's `trim2.png` (`transparentBottom: false`) and `trim3.png` (`true`): 200x200, red
    /// rows 0-29, green 30-129, then blue (or transparent) to the bottom.
    static func stripes(transparentBottom: Bool) -> Bitmap {
        var bitmap = Bitmap(width: 200, height: 200, fill: RGBA(255, 0, 0))
        for y in 30..<200 {
            for x in 0..<200 {
                bitmap[x, y] = y < 130 ? RGBA(0, 255, 0) : (transparentBottom ? RGBA(0, 0, 0, 0) : RGBA(0, 0, 255))
            }
        }
        if transparentBottom { bitmap.alphaMode = .straight }
        return bitmap
    }

    /// imgproxy's trim cases that state a size: the options its test builds, the image, the size.
    static let cases: [(options: String, image: String, width: Int, height: Int)] = [
        // TestThreshold, trim1.png
        ("t:5", "trim1", 320, 220), ("t:100", "trim1", 290, 190), ("t:150", "trim1", 260, 160), ("t:200", "trim1", 230, 130),
        ("t:220", "trim1", 200, 100), ("t:0:ff0000", "trim1", 350, 250), ("t:5::1", "trim1", 330, 220),
        ("t:5:::1", "trim1", 320, 230), ("t:5::1:1", "trim1", 330, 230),
        // TestColor, trim2.png
        ("t:1", "trim2", 200, 170), ("t:1:ff0000", "trim2", 200, 170), ("t:1:0000ff", "trim2", 200, 130),
        ("t:1:ffffff", "trim2", 200, 200),
        // TestAlpha, trim3.png
        ("t:1:ff00ff", "trim3", 200, 130),
    ]

    static func image(named name: String) -> Bitmap {
        switch name {
        case "trim1": frames()
        case "trim2": stripes(transparentBottom: false)
        default: stripes(transparentBottom: true)
        }
    }

    /// Each case rendered as the pipeline renders it (``ProxyRendering`` on a decoded container):
    /// imgproxy's size.
    @Test func imgproxysTrimCasesHaveItsSizes() throws {
        var failures: [String] = []
        for (text, name, width, height) in Self.cases {
            let options = try ProcessingOptionsTests.options(text)
            let rendered = try ProxyRendering(options: options, maximumDimension: 4096)
                .process(ImageContainer(bitmap: Self.image(named: name), format: .png)).bitmap()
            if rendered.width != width || rendered.height != height {
                failures.append("\(text) on \(name): \(rendered.width)x\(rendered.height), imgproxy \(width)x\(height)")
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// Through the server: the border gone (the output's corner is the first grey frame, not
    /// white), the trim before the resize (the trimmed 320x220 fitted, not the 350x250 source),
    /// and a colour found nowhere trimming nothing.
    @Test func trimsBeforeTheGeometryThroughTheServer() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            origin.set("/trim1.png", data: try PNGEncoder().encode(Self.frames()), contentType: "image/png")
            let source = origin.url(for: "/trim1.png")
            let trimmed = try ProxyOptionsTests.image(await proxy.respond(path: ServerTests.path("t:5/f:png", source)))
            #expect(trimmed.width == 320 && trimmed.height == 220)
            #expect(ProxyOptionsTests.near(trimmed[0, 0], RGBA(204, 204, 204), tolerance: 2))
            #expect(ProxyOptionsTests.near(trimmed[160, 110], RGBA(0, 0, 0), tolerance: 2))
            let fitted = try ProxyOptionsTests.image(await proxy.respond(path: ServerTests.path("trim:5/rs:fit:160:0/f:png", source)))
            #expect(fitted.width == 160 && fitted.height == 110)
            let untouched = try ProxyOptionsTests.image(await proxy.respond(path: ServerTests.path("t:5:00ff00/f:png", source)))
            #expect(untouched.width == 350 && untouched.height == 250)
            // An empty threshold turns the option off, as imgproxy reads it.
            let off = try ProxyOptionsTests.image(await proxy.respond(path: ServerTests.path("t:/f:png", source)))
            #expect(off.width == 350 && off.height == 250)
        }
    }

    /// An image that is all border is answered whole, as imgproxy leaves it.
    @Test func anImageOfOneColourIsLeftWhole() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            origin.set("/plain.png", data: try PNGEncoder().encode(Bitmap(width: 60, height: 40, fill: RGBA(9, 9, 9))), contentType: "image/png")
            let plain = try ProxyOptionsTests.image(await proxy.respond(path: ServerTests.path("t:10/f:png", origin.url(for: "/plain.png"))))
            #expect(plain.width == 60 && plain.height == 40)
        }
    }

    @Test(arguments: ["t:abc", "t:-1", "t:10:zz0000", "t:10:ff00ff:2", "t:10::1:yes", "t:1:2:3:4:5", "trim:1e3"])
    func badArgumentsAreRefused(text: String) throws {
        try ProcessingOptionsTests.expectRefusalNamingTheOption(text)
    }

    @Test func aBadArgumentAnswers400() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            let response = await proxy.respond(path: ServerTests.path("t:10:nothex/f:png", origin.url(for: "/q.png")))
            #expect(response.status == 400 && String(decoding: response.body, as: UTF8.self).contains("bad_options"))
        }
    }

    /// The options reach the processor as given, and the canonical text (the cache key) tells
    /// trims apart.
    @Test func parsesImgproxysArguments() throws {
        let trim = try #require(try ProcessingOptionsTests.options("t:25.5:f0a:1:0").trim)
        #expect(trim == ImageProcessors.Trim(threshold: 25.5, color: RGBA(255, 0, 170), equalHorizontal: true))
        #expect(try ProcessingOptionsTests.options("t:10").trim == ImageProcessors.Trim())
        #expect(try ProcessingOptionsTests.options("t::ff0000").trim == nil)
        #expect(try ProcessingOptionsTests.options("t:10").canonical != ProcessingOptionsTests.options("t:10:ffffff").canonical)
        #expect(try ProcessingOptionsTests.options("t:10").canonical != ProcessingOptionsTests.options("w:0").canonical)
    }

    /// An animation is not trimmed, as imgproxy does not trim one; a still of the same pixels is.
    @Test func anAnimationIsNotTrimmed() throws {
        var framed = Bitmap(width: 60, height: 40, fill: RGBA(255, 255, 255))
        for y in 10..<30 { for x in 10..<50 { framed[x, y] = RGBA(0, 0, 0) } }
        var animation = try ImageContainer(bitmap: framed, format: .gif)
        animation.frames = try [framed, framed].map { try AnimationFrame(bitmap: $0, duration: .milliseconds(100)) }
        let rendering = ProxyRendering(options: try ProcessingOptionsTests.options("t:10"), maximumDimension: 4096)
        let animated = try rendering.process(animation)
        #expect(animated.frames.count == 2)
        #expect(try animated.frames.allSatisfy { frame in try frame.bitmap().width == 60 && frame.bitmap().height == 40 })
        let still = try rendering.process(ImageContainer(bitmap: framed, format: .png)).bitmap()
        #expect(still.width == 40 && still.height == 20)
    }

    /// A trim needs every pixel: the source is decoded whole, whatever the output size.
    @Test func aTrimDecodesTheWholeSource() throws {
        let size = PixelSize(width: 4000, height: 3000)
        #expect(ProxyRendering(options: try ProcessingOptionsTests.options("rs:fit:100:100"), maximumDimension: 4096)
            .requiredSourceScale(for: size) < 0.1)
        #expect(ProxyRendering(options: try ProcessingOptionsTests.options("t:10/rs:fit:100:100"), maximumDimension: 4096)
            .requiredSourceScale(for: size) == 1)
    }
}
#endif
