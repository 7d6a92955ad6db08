import Foundation
import Testing

@testable import Imago

/// HEIF and AVIF: recognised by their `ftyp` brands, sized from their boxes, decoded by libheif and
/// libavif (pixels against the fixtures' references run in ``FixtureDecodingTests``), bombs refused
/// from the header and damaged files answered with errors that name the damage.
@Suite struct HEIFAVIFDecodingTests {
    /// An `ftyp` box of `major` with `compatible` brands, followed by nothing.
    static func fileType(_ major: String, _ compatible: [String]) -> Data {
        let payload = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
        let size = UInt32(8 + payload.count)
        return Data(withUnsafeBytes(of: size.bigEndian, Array.init) + Array("ftyp".utf8) + payload)
    }

    @Test(arguments: [
        ("heic", ["mif1", "heic"], ImageFormat.heif), ("heix", [], .heif), ("hevc", [], .heif),
        ("mif1", ["mif1", "heic"], .heif), ("msf1", ["msf1", "hevc"], .heif), ("mif1", [], .heif),
        ("avif", ["mif1", "miaf"], .avif), ("avis", ["msf1"], .avif), ("mif1", ["mif1", "avif", "miaf"], .avif),
        ("msf1", ["avis"], .avif),
    ])
    func sniffsBrands(major: String, compatible: [String], expected: ImageFormat) {
        #expect(ImageFormat.sniff(Self.fileType(major, compatible)) == expected)
    }

    @Test func videoBrandIsNotAnImage() {
        let mp4 = Self.fileType("isom", ["isom", "mp42"])
        #expect(ImageFormat.sniff(mp4) == nil)
        let error = #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(mp4) }
        guard case .unsupportedFormat(_, let detail)? = error else {
            Issue.record("expected unsupportedFormat, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("isom"))
    }

    @Test(arguments: ["heif-lossy", "heif-lossless-grid", "avif-lossless", "avif-animated"])
    func headerDeclaresTheSize(_ name: String) throws {
        let fixture = Fixture.named(name)
        let header = try #require(ImageHeader.probe(try fixture.data()))
        #expect(header.format == (name.hasPrefix("heif") ? .heif : .avif))
        #expect(header.width == fixture.width && header.height == fixture.height)
    }

    @Test func sequenceDeclaresItsFrames() throws {
        let header = try ISOBMFFHeader.parse(try Fixture.named("avif-animated").data())
        #expect(header.brands.first == "avis")
        #expect(header.frameCount == 3)
    }

    @Test(arguments: ["bomb.heif", "bomb.avif"])
    func bombIsRefusedFromTheHeader(_ file: String) throws {
        let data = try Fixture.data(file)
        #expect(ImageHeader.probe(data).map { PixelSize(width: $0.width, height: $0.height) }
                == PixelSize(width: 65_535, height: 65_535))
        let error = #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(data) }
        #expect(error == .limitExceeded(nil, .dimension(width: 65_535, height: 65_535, limit: 32_768)))
        var limits = DecodingLimits()
        limits.maximumDimension = 100_000
        let pixels = #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(data, limits: limits) }
        #expect(pixels == .limitExceeded(nil, .pixelCount(width: 65_535, height: 65_535, limit: 100_000_000)))
    }

    @Test func longSequenceIsRefusedFromTheHeader() throws {
        var limits = DecodingLimits()
        limits.maximumFrameCount = 2
        let error = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(try Fixture.named("avif-animated").data(), limits: limits)
        }
        #expect(error == .limitExceeded(nil, .frameCount(count: 3, limit: 2)))
        // The first frame alone is within the limit.
        let still = try ImageDecoder.decode(
            try Fixture.named("avif-animated").data(), limits: limits, decodesAllFrames: false)
        #expect(still.frames.isEmpty)
    }

    /// Cut at several places: inside the boxes, and inside the coded image data.
    @Test(arguments: ["heif-lossy", "avif-lossless", "avif-animated"], [24, 200, 0.5, 0.95])
    func truncatedFileFailsWithReason(_ name: String, cut: Double) throws {
        let data = try Fixture.named(name).data()
        let length = cut < 1 ? Int(Double(data.count) * cut) : Int(cut)
        let format: ImageFormat = name.hasPrefix("heif") ? .heif : .avif
        let error = #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(data.prefix(length)) }
        guard case .decodingFailed(_, let failedFormat, let reason)? = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(failedFormat == format)
        #expect(reason.contains("ends inside") || reason.contains("cut short"), "\(reason)")
    }

    /// Coded data overwritten with garbage: the codec's own words, not a crash or a grey image.
    @Test(arguments: ["heif-lossy", "avif-lossy"])
    func corruptCodedDataFails(_ name: String) throws {
        var bytes = [UInt8](try Fixture.named(name).data())
        let mdat = try #require(bytes.indices.dropLast(4).first { bytes[$0..<($0 + 4)].elementsEqual("mdat".utf8) })
        for index in (mdat + 4)..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 151) }
        let error = #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(Data(bytes)) }
        guard case .decodingFailed(_, _, let reason)? = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix(name.hasPrefix("heif") ? "libheif" : "libavif"), "\(reason)")
    }

    @Test func animatedAVIFHasFramesWithDurations() throws {
        let container = try ImageDecoder.decode(try Fixture.named("avif-animated").data())
        #expect(container.frames.count == 3)
        #expect(container.frames.map(\.duration) == [.milliseconds(80), .milliseconds(120), .milliseconds(100)])
        let bitmaps = try container.frames.map { try $0.bitmap() }
        #expect(bitmaps[1].pixels != bitmaps[0].pixels)
    }
}
