import Foundation
import Testing

@testable import Imago

/// Every kind of bad input gets its own error, quickly and without allocating the declared size.
@Suite struct DecodingErrorTests {
    /// Each bomb declares 65,535 x 65,535 (WebP: 16,384 x 16,384, its maximum) in under 700 bytes.
    @Test(arguments: ["bomb.png", "bomb.jpg", "bomb.gif", "bomb.webp"])
    func bombIsRefusedFromTheHeader(_ file: String) throws {
        let data = try Fixture.data(file)
        #expect(data.count < 700)
        // A limit violation is only thrown before decoding starts: no timing needed to prove it.
        let error = #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(data) }
        guard case .limitExceeded(_, let violation)? = error else {
            Issue.record("expected limitExceeded, got \(String(describing: error))")
            return
        }
        switch violation {
        case .dimension, .pixelCount, .sourceDimension, .sourcePixelCount: break
        default: Issue.record("unexpected violation \(violation)")
        }
    }

    @Test func bombWithinDimensionLimitHitsPixelLimit() throws {
        var limits = DecodingLimits()
        limits.maximumSourceDimension = 100_000
        let error = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(try Fixture.data("bomb.png"), limits: limits)
        }
        #expect(error == .limitExceeded(nil, .sourcePixelCount(width: 65_535, height: 65_535, limit: 500_000_000)))
    }

    /// Under the strict policy truncated files fail, as before lenient decoding (the default, in
    /// LenientDecodingTests) existed; libjpeg would otherwise return the top of the picture over grey.
    @Test(arguments: [
        ("jpeg-baseline", ImageFormat.jpeg), ("jpeg-progressive", .jpeg), ("jpeg-cmyk", .jpeg),
        ("png-rgba", .png), ("png-rgba-interlaced", .png), ("gif-still", .gif), ("gif-animated", .gif),
        ("webp-lossy", .webp), ("webp-lossless", .webp), ("webp-animated", .webp),
    ])
    func truncatedFileFails(_ name: String, _ format: ImageFormat) throws {
        let data = try Fixture.named(name).data()
        for fraction in [0.3, 0.6, 0.9] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            let error = #expect(throws: ImagePipeline.Error.self, "\(name) cut at \(fraction)") {
                try ImageDecoder.decode(cut, policy: .strict)
            }
            guard case .decodingFailed(_, let failedFormat, let reason)? = error else {
                Issue.record("\(name) cut at \(fraction): expected decodingFailed, got \(String(describing: error))")
                continue
            }
            #expect(failedFormat == format)
            #expect(!reason.isEmpty)
        }
    }

    @Test func truncatedJPEGNamesPrematureEnd() throws {
        let data = try Fixture.named("jpeg-baseline").data()
        let error = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(data.prefix(data.count - 100), policy: .strict)
        }
        guard case .decodingFailed(_, .jpeg, let reason)? = error else { return }
        #expect(reason.localizedCaseInsensitiveContains("premature end"), "\(reason)")
    }

    /// Stray bytes before a marker leave every pixel intact, and browsers show such files.
    @Test func strayBytesBeforeEndMarkerAreTolerated() throws {
        var data = try Fixture.named("jpeg-baseline").data()
        data.insert(contentsOf: [0x12, 0x34, 0x56], at: data.count - 2)
        let image = try ImageDecoder.decode(data).bitmap()
        #expect(image.width == 32 && image.height == 24)
    }

    @Test(arguments: [
        // SOI then garbage where the markers should be.
        ("corrupt JPEG header", Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0xFF, 0x00, 0x13, 0x37]), ImageFormat.jpeg),
        // A PNG whose IHDR checksum is wrong.
        ("corrupt PNG header", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
            + Array("IHDR".utf8) + [0, 0, 0, 8, 0, 0, 0, 8, 8, 6, 0, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF]), .png),
        ("GIF with a 0x0 canvas", Data(Array("GIF89a".utf8) + [0, 0, 0, 0, 0, 0, 0, 0x3B]), .gif),
        ("WebP with a broken VP8 chunk", Data(Array("RIFF".utf8) + [30, 0, 0, 0] + Array("WEBPVP8 ".utf8)
            + [18, 0, 0, 0] + Array(repeating: 0x55, count: 18)), .webp),
    ])
    func corruptHeaderFails(_ label: String, _ data: Data, _ format: ImageFormat) {
        let error = #expect(throws: ImagePipeline.Error.self, "\(label)") { try ImageDecoder.decode(data) }
        guard case .decodingFailed(_, let failedFormat, _)? = error else {
            Issue.record("\(label): expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(failedFormat == format)
    }

    @Test func corruptGIFDataFails() throws {
        var data = [UInt8](try Fixture.named("gif-still").data())
        // Overwrite the start of the LZW data (after the image descriptor, the code size byte and
        // the block length) with codes beyond the table.
        let descriptor = data[(13 + 8 * 3)...].firstIndex(of: 0x2C)!
        for index in (descriptor + 12)..<(descriptor + 30) { data[index] = 0xFF }
        let error = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(Data(data), policy: .strict)
        }
        guard case .decodingFailed(_, .gif, let reason)? = error else { return }
        #expect(reason.contains("LZW"))
    }

    @Test(arguments: [
        ("zero bytes", Data(), "empty data"),
        ("HTML error page", Data("\n  <!DOCTYPE html>\n<html><body>404 Not Found</body></html>".utf8),
         "the body is an HTML page, not an image"),
        ("bare HTML", Data("<html><head><title>Error</title></head></html>".utf8),
         "the body is an HTML page, not an image"),
        ("SVG", Data("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8),
         "the body is an SVG drawing; vector images are not decoded"),
        ("JSON error", Data("{\"error\": \"not found\"}".utf8), "the body looks like JSON, not an image"),
        ("random bytes", Data([0x3F, 0x12, 0x9A, 0x00, 0x01, 0xC3, 0x77, 0x10, 0x42, 0x42]),
         "unrecognised bytes 3F 12 9A 00 01 C3 77 10 … (10 bytes)"),
    ])
    func unrecognisedBytesAreDescribed(_ label: String, _ data: Data, _ detail: String) {
        let url = URL(string: "https://example.com/a.jpg")!
        #expect(throws: ImagePipeline.Error.unsupportedFormat(url, detail: detail), "\(label)") {
            try ImageDecoder.decode(data, url: url)
        }
    }

    @Test func errorsCarryTheURL() throws {
        let url = URL(string: "https://example.com/big.png")!
        let error = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(try Fixture.data("bomb.png"), url: url)
        }
        #expect(error?.url == url)
        #expect(error?.description.hasPrefix("https://example.com/big.png: the header declares 65535x65535") == true)
    }

    @Test func encodedSizeLimit() throws {
        var limits = DecodingLimits()
        limits.maximumEncodedSize = 100
        let data = try Fixture.named("png-rgb").data()
        #expect(throws: ImagePipeline.Error.limitExceeded(nil, .encodedSize(bytes: data.count, limit: 100))) {
            try ImageDecoder.decode(data, limits: limits)
        }
    }

    @Test(arguments: ["gif-animated", "webp-animated"])
    func frameCountLimit(_ name: String) throws {
        var limits = DecodingLimits()
        limits.maximumFrameCount = 2
        #expect(throws: ImagePipeline.Error.limitExceeded(nil, .frameCount(count: 3, limit: 2))) {
            try ImageDecoder.decode(try Fixture.named(name).data(), limits: limits)
        }
        // The first frame alone is within the limit.
        _ = try ImageDecoder.decode(try Fixture.named(name).data(), limits: limits, decodesAllFrames: false)
    }

    @Test(arguments: ["gif-animated", "webp-animated"])
    func totalFramePixelsLimit(_ name: String) throws {
        var limits = DecodingLimits()
        limits.maximumTotalFramePixels = 32 * 24 * 2
        #expect(throws: ImagePipeline.Error.limitExceeded(nil, .totalFramePixels(count: 32 * 24 * 3, limit: 32 * 24 * 2))) {
            try ImageDecoder.decode(try Fixture.named(name).data(), limits: limits)
        }
    }

    @Test func progressiveScanLimit() throws {
        var limits = DecodingLimits()
        limits.maximumProgressiveScans = 3  // Pillow's progressive files have about ten
        #expect(throws: ImagePipeline.Error.limitExceeded(nil, .progressiveScans(limit: 3))) {
            try ImageDecoder.decode(try Fixture.named("jpeg-progressive").data(), limits: limits)
        }
        _ = try ImageDecoder.decode(try Fixture.named("jpeg-baseline").data(), limits: limits)
    }
}
