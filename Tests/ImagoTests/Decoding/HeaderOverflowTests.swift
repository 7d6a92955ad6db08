import Foundation
import Testing

@testable import Imago

/// Absurd sizes in headers and limits: every product is checked, none traps.
@Suite struct HeaderOverflowTests {
    @Test(arguments: [
        (0xFFFF_FFFF, 0xFFFF_FFFF, Int.max),
        (Int.max, 2, Int.max),
        (1 << 32, 1 << 32, Int.max),  // wraps to exactly 0 unchecked
        (Int.min, -1, Int.max),
        (65_535, 65_535, 4_294_836_225),
        (3, 4, 12),
    ])
    func pixelCountSaturates(_ width: Int, _ height: Int, _ expected: Int) {
        #expect(ImageHeader(format: .png, width: width, height: height).pixelCount == expected)
    }

    /// A PNG header declaring 0xFFFFFFFF x 0xFFFFFFFF probes to those figures and decodes to a
    /// limit error, even with the limits lifted as far as they go.
    @Test func hugePNGHeaderIsOverEveryLimit() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 8, 6, 0, 0, 0, 0, 0, 0, 0])
        let header = try #require(ImageHeader.probe(png))
        #expect(header.width == 0xFFFF_FFFF && header.height == 0xFFFF_FFFF)
        #expect(header.pixelCount == Int.max)
        #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(png) }
        #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(png, limits: Self.unlimited) }
    }

    static var unlimited: DecodingLimits {
        var limits = DecodingLimits()
        limits.maximumDimension = .max
        limits.maximumPixelCount = .max
        limits.maximumTotalFramePixels = .max
        return limits
    }

    /// With every limit at `Int.max`, a product that overflows is still over the pixel limit (an
    /// unchecked product wraps to a small or negative number and would pass), and a negative side
    /// is refused.
    @Test(arguments: [
        (1 << 32, 1 << 32), (Int.max, 2), (0xFFFF_FFFF_FF, 0xFFFF_FFFF_FF), (3_037_000_500, 3_037_000_500),
        (-1, 5), (5, -1), (Int.min, Int.min),
    ])
    func limitProductsAreChecked(_ width: Int, _ height: Int) {
        let error = #expect(throws: ImagePipeline.Error.self) {
            try Self.unlimited.check(width: width, height: height, url: nil)
        }
        guard case .limitExceeded(_, let violation)? = error else { return }
        _ = violation.description  // describing absurd figures does not trap either
        #expect(throws: ImagePipeline.Error.self) {
            _ = try Self.unlimited.checkedByteCount(width: width, height: height, url: nil)
        }
    }

    /// Within `Int` as pixels but not as RGBA bytes.
    @Test(arguments: [(Int.max / 2, 1), (1 << 31, 1 << 31), (3, Int.max / 8)])
    func byteCountOverflowIsALimitError(_ width: Int, _ height: Int) {
        #expect(throws: ImagePipeline.Error.limitExceeded(nil, .pixelCount(width: width, height: height, limit: .max))) {
            _ = try Self.unlimited.checkedByteCount(width: width, height: height, url: nil)
        }
    }

    @Test(arguments: [
        DecodingLimits.Violation.pixelCount(width: Int.max, height: Int.max, limit: 1),
        .pixelCount(width: Int.min, height: 3, limit: 1),
    ])
    func absurdViolationsDescribeThemselves(_ violation: DecodingLimits.Violation) {
        #expect(violation.description.contains("more than \(Int.max) pixels"))
        #expect(violation.description.contains("DecodingLimits.maximumPixelCount"))
    }

    /// The running total of an animation's pixels saturates instead of wrapping.
    @Test func framePixelTotalOverflowIsOverTheLimit() {
        var total = Int.max - 10
        #expect(throws: ImagePipeline.Error.limitExceeded(nil, .totalFramePixels(count: .max, limit: .max))) {
            try Self.unlimited.addFramePixels(100, to: &total, url: nil)
        }
    }
}
