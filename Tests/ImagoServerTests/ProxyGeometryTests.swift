#if os(Linux)
import Foundation
import Imago
import Testing

@testable import ImagoServer

/// The numbers of a request before any pixel: crop, scale, result crop, extension, padding and
/// the decode reduction, as imgproxy computes them.
@Suite struct ProxyGeometryTests {
    static func geometry(_ text: String, source: (Int, Int) = (1000, 500), maximum: Int = 4096) throws -> ProxyGeometry {
        let options = try ProcessingOptionsTests.options(text)
        return ProxyGeometry(source: PixelSize(width: source.0, height: source.1), options: options, maximumDimension: maximum)
    }

    typealias Rect = ProxyGeometry.Rect

    /// Where a 200x100 crop of a 1000x500 source sits under each gravity.
    @Test(arguments: [
        ("ce", Rect(x: 400, y: 200, width: 200, height: 100)),
        ("no", Rect(x: 400, y: 0, width: 200, height: 100)),
        ("so", Rect(x: 400, y: 400, width: 200, height: 100)),
        ("ea", Rect(x: 800, y: 200, width: 200, height: 100)),
        ("we", Rect(x: 0, y: 200, width: 200, height: 100)),
        ("noea", Rect(x: 800, y: 0, width: 200, height: 100)),
        ("nowe", Rect(x: 0, y: 0, width: 200, height: 100)),
        ("soea", Rect(x: 800, y: 400, width: 200, height: 100)),
        ("sowe", Rect(x: 0, y: 400, width: 200, height: 100)),
        // Offsets: pixels from 1 up (away from the anchor's edge), shares of the side below.
        ("nowe:10:20", Rect(x: 10, y: 20, width: 200, height: 100)),
        ("soea:10:20", Rect(x: 790, y: 380, width: 200, height: 100)),
        ("ce:0.1:-0.1", Rect(x: 500, y: 150, width: 200, height: 100)),
        ("we:5000:0", Rect(x: 800, y: 200, width: 200, height: 100)),
        // A focus point centres the crop on it, within the image.
        ("fp:0.25:0.5", Rect(x: 150, y: 200, width: 200, height: 100)),
        ("fp:0:0", Rect(x: 0, y: 0, width: 200, height: 100)),
        ("fp:1:1", Rect(x: 800, y: 400, width: 200, height: 100)),
    ])
    func placesTheCropByGravity(gravity: String, rect: Rect) throws {
        let geometry = try Self.geometry("c:200:100:\(gravity)")
        #expect(geometry.crop == rect)
        #expect(!geometry.cropIsSmart)
        // Without its own gravity the crop takes the path's.
        #expect(try Self.geometry("g:\(gravity)/c:200:100").crop == rect)
        #expect(geometry.contentSize == PixelSize(width: 200, height: 100), "no resize: the crop as it is")
    }

    @Test func relativeAndWholeSideCrops() throws {
        #expect(try Self.geometry("c:0.5:0.2").crop == Rect(x: 250, y: 200, width: 500, height: 100))
        #expect(try Self.geometry("c:0:100").crop == Rect(x: 0, y: 200, width: 1000, height: 100))
        #expect(try Self.geometry("c:5000:5000").crop == Rect(x: 0, y: 0, width: 1000, height: 500))
        #expect(try Self.geometry("c:100:100:sm").cropIsSmart)
    }

    /// fill covers the box and cuts where the gravity says, offsets times the ratio.
    @Test func fillCutsByGravity() throws {
        let centre = try Self.geometry("rs:fill:100:100")
        #expect(centre.scaledSize == PixelSize(width: 200, height: 100) && centre.horizontalScale == 0.2)
        #expect(centre.resultCrop == Rect(x: 50, y: 0, width: 100, height: 100))
        #expect(try Self.geometry("rs:fill:100:100/g:we").resultCrop.x == 0)
        #expect(try Self.geometry("rs:fill:100:100/g:ea").resultCrop.x == 100)
        #expect(try Self.geometry("rs:fill:100:100/g:we:10").resultCrop.x == 10)
        #expect(try Self.geometry("rs:fill:50:50/dpr:2/g:we:10").resultCrop.x == 20, "absolute offsets follow dpr")
        #expect(try Self.geometry("rs:fill:100:100/g:fp:0.9:0.5").resultCrop.x == 100)
        #expect(try Self.geometry("rs:fill:100:100/g:sm").resultCropIsSmart)
        #expect(try !Self.geometry("rs:fit:100:100/g:sm").resultCropIsSmart)
        // Not enlarged: a smaller source is cut to the box's shape at its own scale.
        let small = try Self.geometry("rs:fill:800:800", source: (600, 300))
        #expect(small.scaledSize == PixelSize(width: 600, height: 300))
        #expect(small.contentSize == PixelSize(width: 600, height: 300))
    }

    @Test func extensionPlacesTheImageOnTheAskedCanvas() throws {
        let centred = try Self.geometry("rs:fit:800:800/ex:1", source: (600, 300))
        #expect(centred.contentSize == PixelSize(width: 600, height: 300))
        #expect(centred.canvasSize == PixelSize(width: 800, height: 800))
        #expect(centred.contentOrigin == ProxyGeometry.Point(x: 100, y: 250))
        let north = try Self.geometry("rs:fit:800:800:0:1:no", source: (600, 300))
        #expect(north.contentOrigin == ProxyGeometry.Point(x: 100, y: 0))
        let sideOnly = try Self.geometry("w:800/ex:1", source: (600, 300))
        #expect(sideOnly.canvasSize == PixelSize(width: 800, height: 300))
        #expect(try Self.geometry("rs:fit:100:100/ex:1").canvasSize == PixelSize(width: 100, height: 100))
    }

    @Test func paddingFollowsTheRatioAndTheBoundStillHolds() throws {
        let padded = try Self.geometry("rs:fit:100:100/pd:10:20/dpr:2")
        #expect(padded.contentSize == PixelSize(width: 200, height: 100))
        #expect(padded.canvasSize == PixelSize(width: 280, height: 140))
        #expect(padded.contentOrigin == ProxyGeometry.Point(x: 40, y: 20))
        // No resize: the bound is imgproxy's max_result_dimension, so image and padding shrink
        // together (1056x556 at full scale, times 256/1056; each padding side rounded).
        let bounded = try Self.geometry("pd:28", source: (1000, 500), maximum: 256)
        #expect(bounded.canvasSize.width <= 256 && bounded.canvasSize.height <= 256)
        #expect(bounded.canvasSize == PixelSize(width: 256, height: 135))
        let extended = try Self.geometry("w:200/ex:1/pd:28", source: (1000, 4000), maximum: 256)
        #expect(extended.canvasSize.width <= 256 && extended.canvasSize.height <= 256, "\(extended.canvasSize)")
    }

    @Test func rotationTurnsTheSourceFirst() throws {
        let turned = try Self.geometry("rot:90/rs:fit:100:100")
        #expect(turned.rotatedSize == PixelSize(width: 500, height: 1000) && turned.quarterTurns == 1)
        #expect(turned.contentSize == PixelSize(width: 50, height: 100))
        #expect(try Self.geometry("rot:270/c:100:50:no").crop == Rect(x: 200, y: 0, width: 100, height: 50))
        #expect(try Self.geometry("rot:180").rotatedSize == PixelSize(width: 1000, height: 500))
    }

    /// The decode reduction: the largest of 1/8, 1/4, 1/2 whose pixels still cover the output.
    @Test(arguments: [
        ("rs:fit:300:300", 8), ("rs:fit:504:504", 8), ("rs:fit:505:505", 4), ("rs:fill:300:300", 8), ("rs:fill:500:500", 4),
        ("rs:fill:100:100", 8), ("w:2016", 2), ("w:2017", 1), ("w:0", 1), ("pd:1100", 1), ("rs:force:300:300", 8),
        ("rs:force:300:400", 4), ("c:0.5:0.5/w:300", 4), ("rs:fit:300:300:1", 8), ("rot:90/rs:fill:400:300", 4),
    ])
    func reductionCoversTheOutput(text: String, reduction: Int) throws {
        let options = try ProcessingOptionsTests.options(text)
        let source = PixelSize(width: 4032, height: 3024)
        #expect(ImageProxy.reduction(for: source, options: options, maximumDimension: 4096) == reduction)
        let geometry = ProxyGeometry(source: source, options: options, maximumDimension: 4096)
        #expect(geometry.requiredScale <= 1 / Double(reduction))
    }
}
#endif
