import Foundation
import Testing

@testable import Imago

/// With a target size, JPEG decodes at the smallest DCT scale that still covers it.
@Suite struct JPEGScalingTests {
    @Test(arguments: [
        (4000, 3000, 256, 1), (4000, 3000, 500, 1), (4000, 3000, 501, 2), (4000, 3000, 1000, 2),
        (4000, 3000, 3999, 8), (4000, 3000, 8000, 8), (32, 24, 4, 1), (32, 24, 5, 2), (30, 20, 16, 5),
    ])
    func scaleNumerator(_ width: Int, _ height: Int, _ target: Int, _ numerator: Int) {
        #expect(JPEGDecoder.scaleNumerator(width: width, height: height, target: target) == numerator)
    }

    @Test func noTargetMeansFullSize() {
        #expect(JPEGDecoder.scaleNumerator(width: 4000, height: 3000, target: nil) == 8)
    }

    /// A 12-megapixel photo thumbnailed to 256 pixels is decoded at 1/8: 500x375, 0.75 MB instead
    /// of 48 MB.
    @Test func twelveMegapixelThumbnailStaysSmall() async throws {
        try await offThePool {
            let photo = try JPEGEncoder(quality: 0.8).encode(gradientBitmap(width: 4000, height: 3000))
            let image = try ImageDecoder.decode(photo, maximumPixelSize: 256).bitmap()
            #expect(image.width == 500 && image.height == 375)
            #expect(max(image.width, image.height) >= 256)
            #expect(image.byteCount < 30 * 1024 * 1024)
            #expect(image.byteCount == 500 * 375 * 4)
        }
    }

    @Test func orientationAppliesAfterScaling() throws {
        let image = try ImageDecoder.decode(try Fixture.named("jpeg-orientation-6").data(), maximumPixelSize: 16).bitmap()
        #expect(image.width == 12 && image.height == 16)  // 32x24 at 4/8, then turned
    }
}
