import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// `ImageContainer.encoded(as:quality:)`: the documented way to save a loaded image.
@Suite struct ContainerEncodingTests {
    static func container(transparent: Bool) throws -> ImageContainer {
        try ImageContainer(bitmap: Fixtures.picture(width: 90, height: 60, seed: 3, transparent: transparent), format: .png)
    }

    @Test(arguments: [(ImageFormat.png, Double?.none), (.jpeg, nil), (.jpeg, 0.1), (.jpeg, 1.0)])
    func encodedBytesDecodeBackToTheSameSize(_ format: ImageFormat, _ quality: Double?) throws {
        let data = try Self.container(transparent: false).encoded(as: format, quality: quality)
        #expect(ImageFormat.sniff(data) == format)
        let decoded = try ImageDecoder.decode(data)
        #expect(decoded.pixelSize == PixelSize(width: 90, height: 60))
    }

    @Test func pngKeepsTransparencyAndJPEGQualityChangesTheSize() throws {
        let transparent = try Self.container(transparent: true)
        let png = try ImageDecoder.decode(try transparent.encoded(as: .png)).bitmap()
        #expect(png.alphaMode != .opaque)
        #expect(png[0, 0].a < 255)
        let opaque = try Self.container(transparent: false)
        #expect(try opaque.encoded(as: .jpeg, quality: 0.1).count < opaque.encoded(as: .jpeg, quality: 1).count)
    }

    @Test(arguments: [-0.1, 1.5, Double.nan, Double.infinity])
    func qualityOutsideZeroToOneIsAnError(_ quality: Double) throws {
        #expect(throws: ImagePipeline.Error.self) { try Self.container(transparent: false).encoded(as: .jpeg, quality: quality) }
    }

    @Test func aFormatWithoutAnEncoderSaysWhatToUseInstead() throws {
        let error = #expect(throws: ImagePipeline.Error.self) { try Self.container(transparent: false).encoded(as: .gif) }
        #expect(error?.code == "encoding_failed")
        #expect(error?.description.contains("PNG or JPEG") == true)
    }
}
