import Foundation
import Testing

@testable import Imago

/// Limits bound what a decoder holds (after scaling on load); the source limits refuse absurd
/// headers; every violation names the property to raise and the value needed.
@Suite struct DecodingLimitsTests {
    /// 65,535 x 65,535 of zeros: 67 bytes on disk, 17 GB to inflate. Refused from the header, with
    /// or without a target size, whatever the limits on what is held.
    @Test(arguments: [nil, 256] as [Int?])
    func pngBombIsRefusedFromItsHeader(_ target: Int?) throws {
        let data = try Fixture.data("bomb.png")
        var limits = DecodingLimits()
        limits.maximumPixelCount = .max
        limits.maximumDimension = .max
        let error = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(data, limits: limits, maximumPixelSize: target)
        }
        #expect(error == .limitExceeded(nil, .sourceDimension(width: 65_535, height: 65_535, limit: 65_500)))
        limits.maximumSourceDimension = 65_535
        let second = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(data, limits: limits, maximumPixelSize: target)
        }
        #expect(second == .limitExceeded(nil, .sourcePixelCount(width: 65_535, height: 65_535, limit: 500_000_000)))
    }

    /// A JPEG over the held limit at full size passes with a target, because DCT scaling holds 1/8.
    @Test func jpegLimitAppliesToTheScaledSize() throws {
        let photo = try JPEGEncoder(quality: 0.8).encode(gradientBitmap(width: 2000, height: 1500))
        var limits = DecodingLimits()
        limits.maximumPixelCount = 100_000
        let thumbnail = try ImageDecoder.decode(photo, limits: limits, maximumPixelSize: 200).bitmap()
        #expect(thumbnail.width == 250 && thumbnail.height == 188)
        let error = #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(photo, limits: limits) }
        #expect(error == .limitExceeded(nil, .pixelCount(width: 2000, height: 1500, limit: 100_000)))
    }

    /// A PNG over the held limit at full size passes with a target: only the reduced image is held.
    @Test func pngLimitAppliesToTheReducedSize() throws {
        let png = try PNGEncoder().encode(gradientBitmap(width: 2000, height: 1500, alpha: true))
        var limits = DecodingLimits()
        limits.maximumPixelCount = 100_000
        let thumbnail = try ImageDecoder.decode(png, limits: limits, maximumPixelSize: 100).bitmap()
        #expect(thumbnail.width == 200 && thumbnail.height == 150)  // reduced by 10
        let error = #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(png, limits: limits) }
        #expect(error == .limitExceeded(nil, .pixelCount(width: 2000, height: 1500, limit: 100_000)))
        limits.maximumSourcePixelCount = 2_999_999
        let source = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(png, limits: limits, maximumPixelSize: 100)
        }
        #expect(source == .limitExceeded(nil, .sourcePixelCount(width: 2000, height: 1500, limit: 2_999_999)))
    }

    @Test(arguments: [
        (DecodingLimits.Violation.pixelCount(width: 2000, height: 1500, limit: 100), "maximumPixelCount", "3000000"),
        (.dimension(width: 40_000, height: 10, limit: 32_768), "maximumDimension", "40000"),
        (.sourcePixelCount(width: 65_535, height: 65_535, limit: 500_000_000), "maximumSourcePixelCount", "4294836225"),
        (.sourceDimension(width: 10, height: 65_535, limit: 65_500), "maximumSourceDimension", "65535"),
        (.frameCount(count: 1001, limit: 1000), "maximumFrameCount", "1001"),
        (.totalFramePixels(count: 500_000_001, limit: 400_000_000), "maximumTotalFramePixels", "500000001"),
        (.encodedSize(bytes: 60_000_000, limit: 52_428_800), "maximumEncodedSize", "60000000"),
    ])
    func violationNamesThePropertyAndTheValueNeeded(
        _ violation: DecodingLimits.Violation, _ property: String, _ needed: String
    ) {
        #expect(violation.description.contains("raise DecodingLimits.\(property) to at least \(needed) "), "\(violation)")
    }

    @Test func progressiveScanViolationNamesItsProperty() {
        let text = DecodingLimits.Violation.progressiveScans(limit: 100).description
        #expect(text.contains("DecodingLimits.maximumProgressiveScans") && text.contains("more than 100"))
    }

    /// A 20000x20000 source passes the default source limits; 400 MP is what the default is for.
    @Test func defaultSourceLimitsAcceptTwentyThousandSquared() throws {
        try DecodingLimits().checkSource(width: 20_000, height: 20_000, url: nil)
    }
}
