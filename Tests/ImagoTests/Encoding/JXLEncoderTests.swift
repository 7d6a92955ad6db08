import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// JPEG XL output through libjxl's encoder: read back by Imago's JXL decoder and by `djxl`, close
/// to the original when lossy, exact when lossless, with transparency and a kept colour profile.
@Suite struct JXLEncoderTests {
    @Test func isAvailableWhereLibjxlIsLinked() {
        #if os(Linux)
        #expect(JXLEncoder.isAvailable)
        #endif
    }

    @Test func distanceFollowsCjxl() {
        // cjxl -q 90 is distance 1 (visually lossless), -q 100 lossless, -q 0 distance 25.
        #expect(abs(JXLEncoder(quality: 0.9).distance - 1) < 1e-9)
        #expect(JXLEncoder(quality: 1).distance == 0 && JXLEncoder(quality: 1).isLossless)
        #expect(abs(JXLEncoder(quality: 0).distance - 25) < 1e-9)
        #expect(abs(JXLEncoder(quality: 0.3).distance - 6.4) < 1e-9)
        #expect(JXLEncoder(quality: 3).quality == 1 && JXLEncoder(quality: .nan).quality == ImageContainer.defaultEncodingQuality)
        #expect(JXLEncoder(effort: 0).effort == 1 && JXLEncoder(effort: 12).effort == 9 && JXLEncoder().effort == 4)
    }

    /// A lossy photo-like picture at quality 0.9: at least 34 dB against the source through Imago's
    /// decoder (35.4 measured with Debian's libjxl 0.7; the bound leaves room for libjxl's other
    /// SIMD paths on other CPUs), and djxl reads the same pixels Imago does.
    @Test func lossyRoundTripsThroughImagoAndDjxl() async throws {
        let original = Fixtures.picture(width: 96, height: 64, seed: 3)
        let data = try JXLEncoder(quality: 0.9).encode(original)
        #expect(ImageFormat.sniff(data) == .jxl)
        let decoded = try ImageDecoder.decode(data).bitmap()
        #expect(decoded.width == 96 && decoded.height == 64 && decoded.alphaMode == .opaque)
        let psnr = ColorDifference.peakSignalToNoise(decoded, original)
        #expect(psnr >= 34, "\(psnr) dB against the source")
        #if os(Linux)
        if ExternalPrograms.runs(ExternalPrograms.djxl) {
            let byDjxl = try await Self.djxlDecoding(data)
            let againstSource = ColorDifference.peakSignalToNoise(byDjxl, original)
            #expect(againstSource >= 34, "djxl: \(againstSource) dB against the source")
            let againstImago = ColorDifference.peakSignalToNoise(byDjxl, decoded)
            #expect(againstImago >= 45, "djxl against Imago's decoder: \(againstImago) dB")
        }
        #endif
    }

    @Test func losslessRoundTripIsExact() async throws {
        let original = Fixtures.picture(width: 40, height: 30, seed: 8)
        let data = try JXLEncoder(quality: 1).encode(original)
        #expect(try ImageDecoder.decode(data).bitmap().pixels == original.pixels)
        #if os(Linux)
        if ExternalPrograms.runs(ExternalPrograms.djxl) {
            #expect(try await Self.djxlDecoding(data).pixels == original.pixels)
        }
        #endif
    }

    @Test func keepsTransparencyExactlyWhenLossless() throws {
        let original = Fixtures.picture(width: 48, height: 32, seed: 2, transparent: true)
        let lossless = try ImageDecoder.decode(try JXLEncoder(quality: 1).encode(original)).bitmap()
        #expect(lossless.alphaMode == .straight)
        #expect(lossless.pixels == original.straightAlphaPixels)
        let lossy = try ImageDecoder.decode(try JXLEncoder(quality: 0.9).encode(original)).bitmap()
        #expect(lossy.alphaMode != .opaque)
        let alphaError = zip(lossy.allPixels, original.allPixels).map { abs(Int($0.a) - Int($1.a)) }.max() ?? 0
        #expect(alphaError <= 8, "alpha at quality 0.9: \(alphaError)")
    }

    @Test func greyPicturesStayGrey() throws {
        var grey = Fixtures.picture(width: 20, height: 10, seed: 4)
        for index in stride(from: 0, to: grey.pixels.count, by: 4) {
            grey.pixels[index + 1] = grey.pixels[index]
            grey.pixels[index + 2] = grey.pixels[index]
        }
        let data = try JXLEncoder(quality: 1).encode(grey)
        #expect(try ImageDecoder.decode(data).bitmap().pixels == grey.pixels)
        #expect(data.count < (try JXLEncoder(quality: 1).encode(Fixtures.picture(width: 20, height: 10, seed: 4))).count)
    }

    @Test(arguments: [(1, 1), (17, 33)])
    func smallAndOddSizesRoundTrip(width: Int, height: Int) throws {
        let original = Fixtures.picture(width: width, height: height, seed: 5)
        for quality in [0.5, 1.0] {
            let decoded = try ImageDecoder.decode(try JXLEncoder(quality: quality).encode(original)).bitmap()
            #expect(decoded.width == width && decoded.height == height)
            if quality == 1 { #expect(decoded.pixels == original.pixels) }
        }
    }

    @Test func sizeFallsWithQuality() throws {
        let original = Fixtures.picture(width: 96, height: 64, seed: 9)
        let sizes = try [0.3, 0.6, 0.9, 1.0].map { try JXLEncoder(quality: $0).encode(original).count }
        #expect(sizes == sizes.sorted() && Set(sizes).count == sizes.count, "\(sizes)")
    }

    @Test func containersEncodeJXL() throws {
        let container = try ImageContainer(bitmap: Fixtures.picture(width: 40, height: 30), format: .png)
        let data = try container.encoded(as: .jxl)
        #expect(ImageFormat.sniff(data) == .jxl)
        #expect(try ImageDecoder.decode(data).bitmap().width == 40)
        #expect(try container.encoded(as: .jxl, quality: 1).count > 0)
        #expect(throws: ImagePipeline.Error.self) { try container.encoded(as: .jxl, quality: 1.5) }
        #expect(throws: ImagePipeline.Error.self) { try JXLEncoder().encode(Bitmap(width: 0, height: 0)) }
    }

    #if os(Linux)
    /// An animation written losslessly comes back with every frame, its timing and loop count.
    @Test func animationsRoundTripWithTheirTiming() throws {
        let durations: [Duration] = [.milliseconds(100), .milliseconds(250), .milliseconds(40)]
        let source = try ImageDecoder.decode(try Fixtures.animatedGIF(width: 24, height: 16, durations: durations, loopCount: 3))
        let data = try source.encodedAnimation(as: .jxl, quality: 1)
        #expect(ImageFormat.sniff(data) == .jxl)
        let decoded = try ImageDecoder.decode(data)
        #expect(decoded.frames.map(\.duration) == durations && decoded.loopCount == source.loopCount)
        let expected = try source.frames.map { try $0.bitmap().straightAlphaPixels }
        #expect(try decoded.frames.map { try $0.bitmap().straightAlphaPixels } == expected)
        let lossy = try ImageDecoder.decode(try source.encodedAnimation(as: .jxl, quality: 0.8))
        #expect(lossy.frames.count == 3)
        #expect(throws: ImagePipeline.Error.self) {
            try JXLEncoder().encodeAnimation([(Bitmap(width: 2, height: 2), .seconds(1)), (Bitmap(width: 3, height: 2), .seconds(1))], loopCount: 0)
        }
    }

    /// Adobe RGB pixels kept with their profile and written with it: decoded to sRGB, they look as
    /// the source decoded to sRGB does. Lossless (the profile kept): within 45 dB. Lossy (XYB from
    /// the profile): within 1.5 dB of what the same pixels converted to sRGB first and then
    /// encoded at that quality give (this noisy 192x144 photograph is near 30 dB at 0.9 either
    /// way), so the profile costs nothing beyond the compression.
    @Test(arguments: [0.9, 1.0])
    func keptProfileRoundTripsItsColour(quality: Double) throws {
        let source = try Fixture.data("colour/adobergb.jpg")
        let kept = try ImageDecoder.decode(source, colorProfileHandling: .keep)
        #expect(kept.pixelColorProfile != nil)
        let expected = try ImageDecoder.decode(source).bitmap()
        let written = try kept.encoded(as: .jxl, quality: quality)
        let decoded = try ImageDecoder.decode(written).bitmap()
        let psnr = ColorDifference.peakSignalToNoise(decoded, expected)
        if quality == 1 {
            #expect(psnr >= 45, "\(psnr) dB against the source in sRGB")
        } else {
            let inSRGB = try ImageDecoder.decode(try JXLEncoder(quality: quality).encode(expected)).bitmap()
            let baseline = ColorDifference.peakSignalToNoise(inSRGB, expected)
            #expect(psnr >= baseline - 1.5 && psnr >= 28, "\(psnr) dB with the profile, \(baseline) dB from sRGB")
        }
        // Read as sRGB, the same Adobe RGB values are visibly off: the profile is what matters.
        let unmanaged = try kept.bitmap()
        #expect(ColorDifference.peakSignalToNoise(unmanaged, expected) < psnr - 5)
    }

    /// djxl's decoding of `data`, as 8-bit PNG, read by Imago's PNG decoder.
    static func djxlDecoding(_ data: Data) async throws -> Bitmap {
        let djxl = try #require(ExternalPrograms.djxl, "install Debian's libjxl-tools (djxl)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jxl-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("in.jxl"), reference = folder.appendingPathComponent("out.png")
        try data.write(to: source)
        let result = try await CommandRunner.run(
            URL(fileURLWithPath: djxl), arguments: [source.path, reference.path, "--num_threads=1", "--bits_per_sample=8"])
        #expect(result.exited(with: 0), "djxl: \(result.errorOutput)")
        return try ImageDecoder.decode(try Data(contentsOf: reference)).bitmap()
    }
    #endif
}
