#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// Progressive JPEG is written as five spectral-selection scans: the same coefficients as a
/// baseline file in another order, so it decodes to exactly the same pixels.
@Suite struct ProgressiveJPEGTests {
    @Test(arguments: [PixelSize(width: 300, height: 225), PixelSize(width: 17, height: 9), PixelSize(width: 1, height: 1)])
    func decodesToTheSamePixelsAsBaseline(_ size: PixelSize) throws {
        let picture = Fixtures.picture(width: size.width, height: size.height, seed: 3, transparent: false)
        let baseline = try JPEGEncoder(quality: 0.8).encode(picture)
        let progressive = try JPEGEncoder(quality: 0.8, progressive: true).encode(picture)
        #expect(JPEGScanCounter.scanCount(of: baseline, stoppingAfter: 100) == 1)
        #expect(JPEGScanCounter.scanCount(of: progressive, stoppingAfter: 100) == 5)
        #expect(progressive.range(of: Data([0xFF, 0xC2])) != nil, "a progressive frame header (SOF2)")
        #expect(progressive.range(of: Data([0xFF, 0xC0])) == nil, "no baseline frame header (SOF0)")
        let fromBaseline = try ImageDecoder.decode(baseline).bitmap()
        let fromProgressive = try ImageDecoder.decode(progressive).bitmap()
        #expect(fromProgressive.width == size.width && fromProgressive.height == size.height)
        #expect(fromProgressive.pixels == fromBaseline.pixels)
    }
}
#endif
