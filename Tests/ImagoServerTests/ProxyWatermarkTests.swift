#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `watermark` (`wm`), Pro's `watermark_url` (`wmu`) and `IMGPROXY_WATERMARK_*`
/// through the proxy: the watermark's pixels where imgproxy puts them, at the opacity asked.
@Suite struct ProxyWatermarkTests {
    static let white = RGBA(255, 255, 255)
    static let red = RGBA(255, 0, 0)
    static let blue = RGBA(0, 0, 255)

    /// 20x10: the left half red, the right half blue, opaque.
    static let mark: Bitmap = {
        var bitmap = Bitmap(width: 20, height: 10, fill: red)
        for y in 0..<10 { for x in 10..<20 { bitmap[x, y] = blue } }
        return bitmap
    }()

    /// A proxy whose watermark is ``mark`` (unless `configure` changes it) and an origin serving a
    /// white 200x100 PNG at `/white.png` and ``mark`` at `/mark.png`.
    static func withProxy(
        _ configure: (inout ImageProxyConfiguration) throws -> Void = { _ in },
        _ body: (ImageProxy, TestServer) async throws -> Void
    ) async throws {
        try await ProxyOptionsTests.withProxy({ configuration in
            configuration.watermark = try WatermarkImage.decoding(PNGEncoder().encode(mark))
            try configure(&configuration)
        }) { proxy, origin in
            origin.set("/white.png", data: try PNGEncoder().encode(Bitmap(width: 200, height: 100, fill: white)), contentType: "image/png")
            origin.set("/mark.png", data: try PNGEncoder().encode(mark), contentType: "image/png")
            try await body(proxy, origin)
        }
    }

    static func render(_ proxy: ImageProxy, _ origin: TestServer, _ options: String) async throws -> Bitmap {
        try ProxyOptionsTests.image(await proxy.respond(path: ServerTests.path("\(options)/f:png", origin.url(for: "/white.png"))))
    }

    static func near(_ pixel: RGBA, _ color: RGBA, tolerance: Int = 2) -> Bool {
        ProxyOptionsTests.near(pixel, color, tolerance: tolerance)
    }

    /// The watermark's 20x10 at `(x, y)`: its corners red and blue, the pixels around it white.
    static func expectMark(in image: Bitmap, at x: Int, _ y: Int, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(image.width == 200 && image.height == 100, sourceLocation: sourceLocation)
        #expect(near(image[x, y], red) && near(image[x + 9, y + 9], red), "\(label): red half", sourceLocation: sourceLocation)
        #expect(near(image[x + 10, y], blue) && near(image[x + 19, y + 9], blue), "\(label): blue half", sourceLocation: sourceLocation)
        for (outsideX, outsideY) in [(x - 1, y), (x + 20, y + 9), (x, y - 1), (x + 19, y + 10)]
        where (0..<200).contains(outsideX) && (0..<100).contains(outsideY) {
            #expect(near(image[outsideX, outsideY], white), "\(label): white at \(outsideX),\(outsideY)", sourceLocation: sourceLocation)
        }
    }

    /// imgproxy's placement on a 200x100 result: centred is (200 - 20 + 1) / 2 and
    /// (100 - 10 + 1) / 2, halves rounded to even (90, 46).
    @Test(arguments: [
        ("ce", 90, 46), ("no", 90, 0), ("so", 90, 90), ("ea", 180, 46), ("we", 0, 46), ("noea", 180, 0), ("nowe", 0, 0),
        ("soea", 180, 90), ("sowe", 0, 90),
    ])
    func eachPositionPutsTheMarkWhereImgproxyDoes(position: String, x: Int, y: Int) async throws {
        try await Self.withProxy { proxy, origin in
            Self.expectMark(in: try await Self.render(proxy, origin, "wm:1:\(position)"), at: x, y, position)
        }
    }

    /// Offsets move the mark inward from the edge its position names (outward from the centre's
    /// right and bottom), in pixels from 1, as shares of the result below 1.
    @Test(arguments: [
        ("wm:1:nowe:10:5", 10, 5), ("wm:1:soea:10:5", 170, 85), ("wm:1:ce:10:-6", 100, 40), ("wm:1:nowe:0.25:0.1", 50, 10),
    ])
    func offsetsMoveTheMark(options: String, x: Int, y: Int) async throws {
        try await Self.withProxy { proxy, origin in
            Self.expectMark(in: try await Self.render(proxy, origin, options), at: x, y, options)
        }
    }

    /// The path's opacity, times the server's `IMGPROXY_WATERMARK_OPACITY`: red over white at
    /// 0.5 is (255, 128, 128), at 0.25 (255, 191, 191).
    @Test func theOpacityIsThePathsTimesTheServers() async throws {
        try await Self.withProxy { proxy, origin in
            let half = try await Self.render(proxy, origin, "wm:0.5:nowe")
            #expect(Self.near(half[0, 0], RGBA(255, 128, 128), tolerance: 1), "\(half[0, 0])")
            #expect(Self.near(half[19, 9], RGBA(128, 128, 255), tolerance: 1), "\(half[19, 9])")
            let none = try await Self.render(proxy, origin, "wm:0:nowe")
            #expect(Self.near(none[0, 0], Self.white, tolerance: 0))
        }
        try await Self.withProxy({ $0.watermarkOpacity = 0.5 }) { proxy, origin in
            let quarter = try await Self.render(proxy, origin, "wm:0.5:nowe")
            #expect(Self.near(quarter[0, 0], RGBA(255, 191, 191), tolerance: 1), "\(quarter[0, 0])")
        }
    }

    /// `re`: copies side by side over the whole result, an odd number centred (11 across: the
    /// first column is the middle of a copy, blue); offsets are the gaps between copies.
    @Test func replicateTilesFromTheCentre() async throws {
        try await Self.withProxy { proxy, origin in
            let tiled = try await Self.render(proxy, origin, "wm:1:re")
            #expect(Self.near(tiled[0, 0], Self.blue) && Self.near(tiled[10, 0], Self.red) && Self.near(tiled[199, 99], Self.red))
            #expect((0..<100).allSatisfy { y in (0..<200).allSatisfy { x in Self.near(tiled[x, y], Self.red) || Self.near(tiled[x, y], Self.blue) } })
            // 20 pixels across between copies: 40-pixel tiles, five of them exactly, no shift.
            let spaced = try await Self.render(proxy, origin, "wm:1:re:20:0")
            for (x, color) in [(0, Self.white), (9, Self.white), (10, Self.red), (19, Self.red), (20, Self.blue), (29, Self.blue), (30, Self.white), (50, Self.red)] {
                #expect(Self.near(spaced[x, 50], color), "x \(x): \(spaced[x, 50])")
            }
        }
    }

    /// The scale fits the mark into the result's size times it (enlarging it): 0.5 of 200x100
    /// is 100x50, the 20x10 mark five times larger, centred at (50, 26).
    @Test func theScaleIsAShareOfTheResult() async throws {
        try await Self.withProxy { proxy, origin in
            let scaled = try await Self.render(proxy, origin, "wm:1:ce:0:0:0.5")
            #expect(Self.near(scaled[52, 28], Self.red) && Self.near(scaled[147, 73], Self.blue))
            #expect(Self.near(scaled[47, 50], Self.white) && Self.near(scaled[152, 50], Self.white))
            #expect(Self.near(scaled[100, 22], Self.white) && Self.near(scaled[100, 78], Self.white))
        }
    }

    /// A mark scaled far past the result shows its middle, as imgproxy's would (drawn at most
    /// twice the result's size: 400x200 here, centred, so its red half covers the left of the
    /// result and its blue half the right, blended across the middle by the enlargement).
    @Test func aHugeScaleShowsTheMarksMiddle() async throws {
        try await Self.withProxy { proxy, origin in
            let huge = try await Self.render(proxy, origin, "wm:1:ce:0:0:100")
            #expect(Self.near(huge[0, 0], Self.red) && Self.near(huge[20, 99], Self.red), "\(huge[20, 99])")
            #expect(Self.near(huge[180, 0], Self.blue) && Self.near(huge[199, 99], Self.blue), "\(huge[180, 0])")
        }
    }

    /// A scale of 0 keeps the mark's own size, as imgproxy documents it (and as no scale does).
    @Test func aScaleOfZeroKeepsTheSize() async throws {
        try await Self.withProxy { proxy, origin in
            Self.expectMark(in: try await Self.render(proxy, origin, "wm:1:nowe:0:0:0"), at: 0, 0, "scale 0")
        }
    }

    /// With no image configured and none in the path, imgproxy ignores `wm`: so does this.
    @Test func withoutAnImageTheOptionChangesNothing() async throws {
        try await Self.withProxy({ $0.watermark = nil }) { proxy, origin in
            let plain = try await Self.render(proxy, origin, "wm:1:nowe")
            #expect((0..<100).allSatisfy { y in (0..<200).allSatisfy { x in plain[x, y] == Self.white } })
        }
    }

    /// `wmu`: the path's own image, fetched from the origin, over the result.
    @Test func thePathsWatermarkURL() async throws {
        try await Self.withProxy({ $0.watermark = nil }) { proxy, origin in
            let encoded = Base64URL.encode(Array(origin.url(for: "/mark.png").absoluteString.utf8))
            Self.expectMark(in: try await Self.render(proxy, origin, "wmu:\(encoded)/wm:1:soea"), at: 180, 90, "wmu")
        }
    }

    /// A `wmu` the source policy refuses (here: outside `IMGPROXY_ALLOWED_SOURCES`, which names
    /// the source only) is refused as a source would be, 403.
    @Test func aRefusedWatermarkURLIsForbidden() async throws {
        try await Self.withProxy({ $0.sourcePolicy.allowedSources = ["http://127.0.0.1:*/white.png"] }) { proxy, origin in
            let allowed = try await Self.render(proxy, origin, "wm:1")
            #expect(allowed.width == 200)
            let encoded = Base64URL.encode(Array(origin.url(for: "/mark.png").absoluteString.utf8))
            let response = await proxy.respond(path: ServerTests.path("wmu:\(encoded)/wm:1/f:png", origin.url(for: "/white.png")))
            #expect(response.status == 403, "\(response.status)")
        }
    }

    @Test(arguments: [
        "wm:2", "wm:-0.1", "wm:", "wm:1:xx", "wm:1:sm", "wm:1:ce:a", "wm:1:ce:0:b", "wm:1:ce:0:0:-1", "wm:1:ce:0:0:101",
        "wm:1:ce:0:0:1:1", "wmu:***", "wmu:YWJj",
    ])
    func badArgumentsAreRefused(text: String) throws {
        try ProcessingOptionsTests.expectRefusalNamingTheOption(text)
    }

    @Test func aBadArgumentAnswers400() async throws {
        try await Self.withProxy { proxy, origin in
            let response = await proxy.respond(path: ServerTests.path("wm:1:middle/f:png", origin.url(for: "/white.png")))
            #expect(response.status == 400 && String(decoding: response.body, as: UTF8.self).contains("bad_options"))
        }
    }

    /// imgproxy's `watermark_test.go` cases: its 1080x902 source keeps its size under every
    /// watermark, and `dpr:0.5` halves it (its watermark is the 200x100 `geometry.png`).
    @Test func imgproxysWatermarkCasesKeepItsSizes() throws {
        let cases: [(String, Int, Int)] =
            ["ce", "no", "ea", "so", "we", "nowe", "noea", "sowe", "soea", "re"].map { ("wm:1:\($0)", 1080, 902) } + [
                ("wm:1:no:50", 1080, 902), ("wm:1:no:0:50", 1080, 902), ("wm:1:no:50:50", 1080, 902),
                ("wm:1:no:50:50/dpr:0.5", 540, 451), ("wm:1:no:50:50/dpr:2", 1080, 902), ("wm:1:re:50", 1080, 902),
                ("wm:1:re:0:50", 1080, 902), ("wm:1:re:50:50", 1080, 902), ("wm:1:re:50:50/dpr:0.5", 540, 451),
                ("wm:1:re:50:50/dpr:2", 1080, 902), ("wm:0:re", 1080, 902), ("wm:0.5:re", 1080, 902), ("wm:1:re", 1080, 902),
                ("wm:1:re:0:0:0.5", 1080, 902), ("wm:1:re:0:0:0", 1080, 902),
            ]
        let source = try ImageContainer(bitmap: Bitmap(width: 1080, height: 902, fill: RGBA(40, 90, 160)), format: .png)
        var failures: [String] = []
        for (text, width, height) in cases {
            let options = try ProcessingOptionsTests.options(text)
            let watermark = ProxyWatermark(
                image: ImgproxyGeometryTableTests.source, imageIdentifier: "geometry", options: try #require(options.watermark))
            let rendered = try ProxyRendering(options: options, maximumDimension: 4096, watermark: watermark)
                .process(source).bitmap()
            if rendered.width != width || rendered.height != height {
                failures.append("\(text): \(rendered.width)x\(rendered.height), imgproxy \(width)x\(height)")
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// `IMGPROXY_WATERMARK_DATA`, `_PATH`, `_URL` and `_OPACITY` as imgproxy reads them.
    @Test func theEnvironmentNamesTheWatermark() throws {
        let png = try PNGEncoder().encode(Self.mark)
        let fromData = try ServeEnvironment(["IMGPROXY_WATERMARK_DATA": png.base64EncodedString(), "IMGPROXY_WATERMARK_OPACITY": "0.5"])
        guard case .bitmap(let bitmap, _)? = fromData.watermark else {
            Issue.record("IMGPROXY_WATERMARK_DATA gave \(String(describing: fromData.watermark))")
            return
        }
        #expect(bitmap.width == 20 && bitmap.height == 10 && bitmap[0, 0] == Self.red)
        #expect(fromData.watermarkOpacity == 0.5)
        var configuration = ImageProxyConfiguration()
        try fromData.apply(to: &configuration)
        #expect(configuration.watermarkOpacity == 0.5 && configuration.watermark == fromData.watermark)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("mark.png")
        try png.write(to: file)
        #expect(try ServeEnvironment(["IMGPROXY_WATERMARK_PATH": file.path]).watermark == fromData.watermark)
        let fromURL = try ServeEnvironment(["IMGPROXY_WATERMARK_URL": "https://example.com/mark.png"]).watermark
        #expect(fromURL == .url(URL(string: "https://example.com/mark.png")!))
        #expect(try ServeEnvironment([:]).watermark == nil)

        for (name, value) in [
            ("IMGPROXY_WATERMARK_OPACITY", "0"), ("IMGPROXY_WATERMARK_OPACITY", "1.5"), ("IMGPROXY_WATERMARK_OPACITY", "half"),
            ("IMGPROXY_WATERMARK_DATA", "bm90IGFuIGltYWdl"), ("IMGPROXY_WATERMARK_PATH", directory.appendingPathComponent("none").path),
        ] {
            do {
                _ = try ServeEnvironment([name: value])
                Issue.record("\(name)=\(value) was accepted")
            } catch {
                #expect(error.variable == name)
            }
        }
    }
}
#endif
