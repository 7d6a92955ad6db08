#if os(Linux)
import Foundation
import Imago
import Testing

@testable import ImagoServer

/// imgproxy 4's own size cases, through this proxy: every case of imgproxy's
/// `processing/processing_test.go` (167: fit, fill, fill-down with enlarge, extend and
/// extend_aspect_ratio, and max_result_dimension with rotation and padding) and of its
/// `crop_test.go`, `extend_test.go` and `padding_test.go` that states an output size (79), with
/// the option text imgproxy's tests build and the width and height they expect.
///
/// imgproxy runs them on its `testdata/geometry.png`, 200x100. Only the size matters for a size
/// case, so the source here is generated: 200x100, four coloured quadrants (``source``).
@Suite struct ImgproxyGeometryTableTests {
    /// The option texts and the output size imgproxy's tests expect for its 200x100 image.
    static let cases: [(options: String, width: Int, height: Int)] = [
        // processing_test TestResizeToFit
        ("rs:fit:50:50", 50, 25), ("rs:fit:50:20", 40, 20), ("rs:fit:20:50", 20, 10), ("rs:fit:300:300", 200, 100),
        ("rs:fit:300:50", 100, 50), ("rs:fit:100:300", 100, 50), ("rs:fit:0:50", 100, 50), ("rs:fit:50:0", 50, 25),
        ("rs:fit:0:200", 200, 100), ("rs:fit:300:0", 200, 100),
        // processing_test TestResizeToFitEnlarge
        ("rs:fit:50:50/el:1", 50, 25), ("rs:fit:50:20/el:1", 40, 20), ("rs:fit:20:50/el:1", 20, 10),
        ("rs:fit:300:300/el:1", 300, 150), ("rs:fit:300:125/el:1", 250, 125), ("rs:fit:250:300/el:1", 250, 125),
        ("rs:fit:0:50/el:1", 100, 50), ("rs:fit:50:0/el:1", 50, 25), ("rs:fit:0:200/el:1", 400, 200),
        ("rs:fit:300:0/el:1", 300, 150),
        // processing_test TestResizeToFitExtend
        ("rs:fit:50:50/ex:1", 50, 50), ("rs:fit:50:20/ex:1", 50, 20), ("rs:fit:20:50/ex:1", 20, 50),
        ("rs:fit:300:300/ex:1", 300, 300), ("rs:fit:300:125/ex:1", 300, 125), ("rs:fit:250:300/ex:1", 250, 300),
        ("rs:fit:0:50/ex:1", 100, 50), ("rs:fit:50:0/ex:1", 50, 25), ("rs:fit:0:200/ex:1", 200, 200),
        ("rs:fit:300:0/ex:1", 300, 100),
        // processing_test TestResizeToFitExtendAR
        ("rs:fit:50:50/exar:1", 50, 50), ("rs:fit:50:20/exar:1", 50, 20), ("rs:fit:20:50/exar:1", 20, 50),
        ("rs:fit:300:300/exar:1", 200, 200), ("rs:fit:300:125/exar:1", 240, 100), ("rs:fit:250:500/exar:1", 200, 400),
        ("rs:fit:0:50/exar:1", 100, 50), ("rs:fit:50:0/exar:1", 50, 25), ("rs:fit:0:200/exar:1", 200, 100),
        ("rs:fit:300:0/exar:1", 200, 100),
        // processing_test TestResizeToFill
        ("rs:fill:50:50", 50, 50), ("rs:fill:50:20", 50, 20), ("rs:fill:20:50", 20, 50), ("rs:fill:300:300", 200, 100),
        ("rs:fill:300:50", 200, 50), ("rs:fill:100:300", 100, 100), ("rs:fill:0:50", 100, 50), ("rs:fill:50:0", 50, 25),
        ("rs:fill:0:200", 200, 100), ("rs:fill:300:0", 200, 100),
        // processing_test TestResizeToFillEnlarge
        ("rs:fill:50:50/el:1", 50, 50), ("rs:fill:50:20/el:1", 50, 20), ("rs:fill:20:50/el:1", 20, 50),
        ("rs:fill:300:300/el:1", 300, 300), ("rs:fill:300:125/el:1", 300, 125), ("rs:fill:250:300/el:1", 250, 300),
        ("rs:fill:0:50/el:1", 100, 50), ("rs:fill:50:0/el:1", 50, 25), ("rs:fill:0:200/el:1", 400, 200),
        ("rs:fill:300:0/el:1", 300, 150),
        // processing_test TestResizeToFillExtend
        ("rs:fill:50:50/ex:1", 50, 50), ("rs:fill:50:20/ex:1", 50, 20), ("rs:fill:20:50/ex:1", 20, 50),
        ("rs:fill:300:300/ex:1", 300, 300), ("rs:fill:300:125/ex:1", 300, 125), ("rs:fill:250:300/ex:1", 250, 300),
        ("rs:fill:300:50/ex:1", 300, 50), ("rs:fill:100:300/ex:1", 100, 300), ("rs:fill:0:50/ex:1", 100, 50),
        ("rs:fill:50:0/ex:1", 50, 25), ("rs:fill:0:200/ex:1", 200, 200), ("rs:fill:300:0/ex:1", 300, 100),
        // processing_test TestResizeToFillExtendAR
        ("rs:fill:50:50/exar:1", 50, 50), ("rs:fill:50:20/exar:1", 50, 20), ("rs:fill:20:50/exar:1", 20, 50),
        ("rs:fill:300:300/exar:1", 200, 200), ("rs:fill:300:125/exar:1", 240, 100), ("rs:fill:250:500/exar:1", 200, 400),
        ("rs:fill:300:50/exar:1", 300, 50), ("rs:fill:100:300/exar:1", 100, 300), ("rs:fill:0:50/exar:1", 100, 50),
        ("rs:fill:50:0/exar:1", 50, 25), ("rs:fill:0:200/exar:1", 200, 100), ("rs:fill:300:0/exar:1", 200, 100),
        // processing_test TestResizeToFillDown
        ("rs:fill-down:50:50", 50, 50), ("rs:fill-down:50:20", 50, 20), ("rs:fill-down:20:50", 20, 50),
        ("rs:fill-down:300:300", 100, 100), ("rs:fill-down:300:125", 200, 83), ("rs:fill-down:250:300", 83, 100),
        ("rs:fill-down:0:50", 100, 50), ("rs:fill-down:50:0", 50, 25), ("rs:fill-down:0:200", 200, 100),
        ("rs:fill-down:300:0", 200, 100),
        // processing_test TestResizeToFillDownEnlarge
        ("rs:fill-down:50:50/el:1", 50, 50), ("rs:fill-down:50:20/el:1", 50, 20), ("rs:fill-down:20:50/el:1", 20, 50),
        ("rs:fill-down:300:300/el:1", 300, 300), ("rs:fill-down:300:125/el:1", 300, 125),
        ("rs:fill-down:250:300/el:1", 250, 300), ("rs:fill-down:0:50/el:1", 100, 50), ("rs:fill-down:50:0/el:1", 50, 25),
        ("rs:fill-down:0:200/el:1", 400, 200), ("rs:fill-down:300:0/el:1", 300, 150),
        // processing_test TestResizeToFillDownExtend
        ("rs:fill-down:50:50/ex:1", 50, 50), ("rs:fill-down:50:20/ex:1", 50, 20), ("rs:fill-down:20:50/ex:1", 20, 50),
        ("rs:fill-down:300:300/ex:1", 300, 300), ("rs:fill-down:300:125/ex:1", 300, 125),
        ("rs:fill-down:250:300/ex:1", 250, 300), ("rs:fill-down:300:50/ex:1", 300, 50), ("rs:fill-down:100:300/ex:1", 100, 300),
        ("rs:fill-down:0:50/ex:1", 100, 50), ("rs:fill-down:50:0/ex:1", 50, 25), ("rs:fill-down:0:200/ex:1", 200, 200),
        ("rs:fill-down:300:0/ex:1", 300, 100),
        // processing_test TestResizeToFillDownExtendAR
        ("rs:fill-down:50:50/exar:1", 50, 50), ("rs:fill-down:50:20/exar:1", 50, 20), ("rs:fill-down:20:50/exar:1", 20, 50),
        ("rs:fill-down:300:300/exar:1", 100, 100), ("rs:fill-down:300:125/exar:1", 200, 83),
        ("rs:fill-down:250:300/exar:1", 83, 100), ("rs:fill-down:0:50/exar:1", 100, 50), ("rs:fill-down:50:0/exar:1", 50, 25),
        ("rs:fill-down:0:200/exar:1", 200, 100), ("rs:fill-down:300:0/exar:1", 200, 100),
        // processing_test TestResultSizeLimit
        ("mrd:1000/rs:fit:100:100", 100, 50), ("mrd:50/rs:fit:100:100", 50, 25), ("mrd:50/rs:fit:0:0", 50, 25),
        ("mrd:100/rs:fit:0:100", 100, 50), ("mrd:50/rs:fit:150:0", 50, 25), ("mrd:100/rs:fit:1000:1000", 100, 50),
        ("mrd:100/rs:fit:1000:1000/el:1", 100, 50), ("mrd:100/rs:fit:1000:2000/ex:1", 50, 100),
        ("mrd:100/rs:fit:1000:2000/exar:1", 50, 100), ("mrd:100/rs:fit:100:150/rot:90", 50, 100),
        ("mrd:100/rs:fit:0:0/rot:90", 50, 100), ("mrd:200/rs:fit:100:100/pd:100:200:300:400", 200, 129),
        ("mrd:1000/rs:fill:100:100", 100, 100), ("mrd:50/rs:fill:100:100", 50, 50), ("mrd:50/rs:fill:1000:50", 50, 13),
        ("mrd:50/rs:fill:100:1000", 50, 50), ("mrd:50/rs:fill:0:0", 50, 25), ("mrd:100/rs:fill:0:100", 100, 50),
        ("mrd:50/rs:fill:150:0", 50, 25), ("mrd:100/rs:fill:1000:1000", 100, 50), ("mrd:100/rs:fill:1000:1000/el:1", 100, 100),
        ("mrd:100/rs:fill:1000:2000/ex:1", 50, 100), ("mrd:100/rs:fill:1000:2000/exar:1", 50, 100),
        ("mrd:100/rs:fill:100:150/rot:90", 67, 100), ("mrd:100/rs:fill:0:0/rot:90", 50, 100),
        ("mrd:200/rs:fill:100:100/pd:100:200:300:400", 200, 144), ("mrd:1000/rs:fill-down:100:100", 100, 100),
        ("mrd:50/rs:fill-down:100:100", 50, 50), ("mrd:50/rs:fill-down:1000:50", 50, 3),
        ("mrd:50/rs:fill-down:100:1000", 5, 50), ("mrd:50/rs:fill-down:0:0", 50, 25), ("mrd:100/rs:fill-down:0:100", 100, 50),
        ("mrd:50/rs:fill-down:150:0", 50, 25), ("mrd:100/rs:fill-down:1000:1000", 100, 100),
        ("mrd:100/rs:fill-down:1000:1000/el:1", 100, 100), ("mrd:100/rs:fill-down:1000:2000/ex:1", 50, 100),
        ("mrd:100/rs:fill-down:1000:2000/exar:1", 50, 100), ("mrd:100/rs:fill-down:1000:1500/rot:90", 67, 100),
        ("mrd:100/rs:fill-down:0:0/rot:90", 50, 100), ("mrd:200/rs:fill-down:100:100/pd:100:200:300:400", 200, 144),
        ("mrd:200/rs:fill-down:1000:1000/pd:100:200:300:400", 200, 144),
        // crop_test TestResizeFill
        ("rs:fill:100:26/g:ce", 100, 26), ("rs:fill:100:26/g:no", 100, 26), ("rs:fill:100:26/g:so", 100, 26),
        ("rs:fill:100:26/g:noea", 100, 26), ("rs:fill:100:26/g:soea", 100, 26), ("rs:fill:100:26/g:sowe", 100, 26),
        ("rs:fill:100:26/g:nowe", 100, 26), ("rs:fill:26:100/g:ce", 26, 100), ("rs:fill:26:100/g:ea", 26, 100),
        ("rs:fill:26:100/g:we", 26, 100), ("rs:fill:26:100/g:noea", 26, 100), ("rs:fill:26:100/g:soea", 26, 100),
        ("rs:fill:26:100/g:sowe", 26, 100), ("rs:fill:26:100/g:nowe", 26, 100), ("rs:fill:100:26/g:ce/dpr:2", 200, 52),
        ("rs:fill:100:26/g:no::5", 100, 26), ("rs:fill:100:26/g:no::5/dpr:0.5", 50, 13),
        ("rs:fill:100:26/g:no::5/dpr:2", 200, 52), ("rs:fill:26:100/g:no:5", 26, 100),
        ("rs:fill:26:100/g:no:5/dpr:0.5", 13, 50), ("rs:fill:26:100/g:no:5/dpr:2", 26, 100),
        ("rs:fill:100:26/g:no::0.1", 100, 26), ("rs:fill:100:26/g:no::0.1/dpr:0.5", 50, 13),
        ("rs:fill:100:26/g:no::0.1/dpr:2", 200, 52),
        // crop_test TestCrop
        ("c:50:50:ce", 50, 50), ("c:50:50:no", 50, 50), ("c:50:50:so", 50, 50), ("c:50:50:ea", 50, 50), ("c:50:50:we", 50, 50),
        ("c:50:50:noea", 50, 50), ("c:50:50:nowe", 50, 50), ("c:50:50:soea", 50, 50), ("c:50:50:sowe", 50, 50),
        ("c:50:50:ce:10", 50, 50), ("c:50:50:ce::10", 50, 50), ("c:50:50:ce:10:10", 50, 50), ("c:50:50:ce:0.1", 50, 50),
        ("c:50:50:ce::0.1", 50, 50), ("c:50:50:ce:0.1:0.1", 50, 50), ("c:50:50:ce:10:10/dpr:0.5", 25, 25),
        // extend_test TestExtend
        ("w:500/h:500/ex:1:ce", 500, 500), ("w:500/h:500/ex:1:no", 500, 500), ("w:500/h:500/ex:1:so", 500, 500),
        ("w:500/h:500/ex:1:ea", 500, 500), ("w:500/h:500/ex:1:we", 500, 500), ("w:500/h:500/ex:1:noea", 500, 500),
        ("w:500/h:500/ex:1:soea", 500, 500), ("w:500/h:500/ex:1:sowe", 500, 500), ("w:500/h:500/ex:1:nowe", 500, 500),
        ("w:500/h:500/ex:1:no::5", 500, 500), ("w:500/h:500/ex:1:no::5/dpr:0.5", 250, 250),
        ("w:500/h:500/ex:1:no::5/dpr:2", 500, 500), ("w:500/h:500/ex:1:ea:5", 500, 500),
        ("w:500/h:500/ex:1:ea:5/dpr:0.5", 250, 250), ("w:500/h:500/ex:1:ea:5/dpr:2", 500, 500),
        ("w:500/h:500/ex:1:no::0.1", 500, 500), ("w:500/h:500/ex:1:no::0.1/dpr:0.5", 250, 250),
        ("w:500/h:500/ex:1:no::0.1/dpr:2", 500, 500),
        // extend_test TestExtendAspectRatio
        ("w:300/h:600/exar:1:ce", 200, 400), ("w:300/h:600/exar:1:no", 200, 400), ("w:300/h:600/exar:1:so", 200, 400),
        ("w:300/h:600/exar:1:ea", 200, 400), ("w:300/h:600/exar:1:we", 200, 400), ("w:300/h:600/exar:1:noea", 200, 400),
        ("w:300/h:600/exar:1:soea", 200, 400), ("w:300/h:600/exar:1:sowe", 200, 400), ("w:300/h:600/exar:1:nowe", 200, 400),
        ("w:300/h:600/exar:1:no::5", 200, 400), ("w:300/h:600/exar:1:no::5/dpr:0.5", 150, 300),
        ("w:300/h:600/exar:1:no::5/dpr:2", 200, 400), ("w:300/h:600/exar:1:ea:5", 200, 400),
        ("w:300/h:600/exar:1:ea:5/dpr:0.5", 150, 300), ("w:300/h:600/exar:1:ea:5/dpr:2", 200, 400),
        ("w:300/h:600/exar:1:no::0.1", 200, 400), ("w:300/h:600/exar:1:no::0.1/dpr:0.5", 150, 300),
        ("w:300/h:600/exar:1:no::0.1/dpr:2", 200, 400),
        // padding_test TestPadding
        ("dpr:0.500000/padding:20:30:40:10/background:f00/enlarge:1", 120, 80),
        ("dpr:1.000000/padding:20:30:40:10/background:f00/enlarge:1", 240, 160),
        ("dpr:2.000000/padding:20:30:40:10/background:f00/enlarge:1", 480, 320),
    ]

    /// imgproxy's geometry.png in size: 200x100, a colour a quadrant so misplaced pixels show.
    static let source: Bitmap = {
        var bitmap = Bitmap(width: 200, height: 100, fill: RGBA(230, 20, 20))
        for y in 0..<100 {
            for x in 0..<200 where x >= 100 || y >= 50 {
                bitmap[x, y] = y < 50 ? RGBA(20, 200, 40) : (x < 100 ? RGBA(30, 40, 220) : RGBA(240, 220, 20))
            }
        }
        return bitmap
    }()

    @Test func theTableIsImgproxysWhole() {
        #expect(Self.cases.count == 167 + 79)
    }

    /// Each case parsed as a path, planned for a 200x100 source within the default bound, and
    /// rendered from real pixels: the plan's canvas and the bitmap are imgproxy's size.
    @Test func everyCaseHasImgproxysSize() throws {
        var failures: [String] = []
        for (text, width, height) in Self.cases {
            let options = try ProcessingOptionsTests.options(text)
            let geometry = ProxyGeometry(source: PixelSize(width: 200, height: 100), options: options, maximumDimension: 4096)
            let output = try ProxyRenderer(geometry: geometry, options: options).render(Self.source)
            if geometry.canvasSize != PixelSize(width: width, height: height) || output.width != width || output.height != height {
                failures.append("\(text): \(output.width)x\(output.height), imgproxy \(width)x\(height)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(Self.cases.count) differ:\n\(failures.joined(separator: "\n"))")
    }

    /// A sample of the table end to end: a PNG of the source on a loopback origin, the proxy's
    /// answer decoded (one case in eight, every group represented).
    @Test func aSampleThroughTheServer() async throws {
        try await ProxyOptionsTests.withProxy({ $0.allowsSecurityOptions = true }) { proxy, origin in
            origin.set("/geometry.png", data: try PNGEncoder().encode(Self.source), contentType: "image/png")
            let url = origin.url(for: "/geometry.png")
            for (index, (text, width, height)) in Self.cases.enumerated() where index % 8 == 0 {
                let image = try ProxyOptionsTests.image(await proxy.respond(path: ServerTests.path("\(text)/f:png", url)))
                #expect(image.width == width && image.height == height, "\(text)")
            }
        }
    }
}
#endif
