#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago
@testable import ImagoServer

/// imgproxy's encoder settings (`IMGPROXY_JPEG_PROGRESSIVE`, `_PNG_INTERLACED`, `_PNG_QUANTIZE`,
/// `_PNG_QUANTIZATION_COLORS`, `_WEBP_EFFORT`, `_WEBP_PRESET`, `_AVIF_SPEED`): read from the environment with
/// imgproxy's ranges, each visible in the bytes the proxy writes, a bad value refused by name.
@Suite struct EncoderSettingsTests {
    /// The settings an environment gives the proxy.
    static func settings(_ environment: [String: String]) throws -> ProxyEncoderSettings {
        var configuration = ImageProxyConfiguration()
        try ServeEnvironment(environment).apply(to: &configuration)
        return configuration.encoderSettings
    }

    /// The proxy's encoding of a small picture as `format` with the settings `environment` gives.
    static func encoded(_ format: ImageFormat, _ environment: [String: String], transparent: Bool = false) throws -> Data {
        let bitmap = Fixtures.picture(width: 64, height: 48, seed: 5, transparent: transparent)
        return try ImageProxy.encode(
            bitmap, as: format, quality: 0.8, profile: nil, maximumBytes: nil, settings: settings(environment))
    }

    /// Whether `jpeg` has a start-of-frame marker `marker` (0xC0 baseline, 0xC2 progressive)
    /// among its segments before the first scan.
    static func hasFrame(_ marker: UInt8, in jpeg: Data) -> Bool {
        let bytes = [UInt8](jpeg)
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let kind = bytes[offset + 1]
            if kind == marker { return true }
            if kind == 0xDA { return false }
            offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        return false
    }

    /// The data of the first chunk of `type` in `png`, if any.
    static func chunk(_ type: String, in png: Data) -> [UInt8]? {
        let bytes = [UInt8](png)
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let name = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard offset + 12 + length <= bytes.count else { return nil }
            if name == type { return Array(bytes[(offset + 8)..<(offset + 8 + length)]) }
            offset += 12 + length
        }
        return nil
    }

    @Test func theDefaultsAreImgproxys() throws {
        let defaults = try Self.settings([:])
        #expect(!defaults.jpegProgressive && !defaults.pngInterlaced && defaults.pngQuantizationColors == nil)
        #expect(defaults.webpEffort == 4 && defaults.avifSpeed == 8)
        let set = try Self.settings([
            "IMGPROXY_JPEG_PROGRESSIVE": "true", "IMGPROXY_PNG_INTERLACED": "1", "IMGPROXY_PNG_QUANTIZE": "t",
            "IMGPROXY_PNG_QUANTIZATION_COLORS": "16", "IMGPROXY_WEBP_EFFORT": "6", "IMGPROXY_AVIF_SPEED": "3",
        ])
        #expect(set.jpegProgressive && set.pngInterlaced && set.pngQuantizationColors == 16)
        #expect(set.webpEffort == 6 && set.avifSpeed == 3)
        // imgproxy's reading: the colours count only when quantization is on; on alone is 256.
        #expect(try Self.settings(["IMGPROXY_PNG_QUANTIZATION_COLORS": "16"]).pngQuantizationColors == nil)
        #expect(try Self.settings(["IMGPROXY_PNG_QUANTIZE": "true"]).pngQuantizationColors == 256)
    }

    @Test(arguments: [
        ("IMGPROXY_JPEG_PROGRESSIVE", "yes"), ("IMGPROXY_PNG_INTERLACED", "2"), ("IMGPROXY_PNG_QUANTIZE", "on"),
        ("IMGPROXY_PNG_QUANTIZATION_COLORS", "1"), ("IMGPROXY_PNG_QUANTIZATION_COLORS", "257"),
        ("IMGPROXY_WEBP_EFFORT", "0"), ("IMGPROXY_WEBP_EFFORT", "7"), ("IMGPROXY_AVIF_SPEED", "10"),
        ("IMGPROXY_AVIF_SPEED", "-1"), ("IMGPROXY_AVIF_SPEED", "fast"), ("IMGPROXY_WEBP_PRESET", "photograph"),
        ("IMGPROXY_WEBP_PRESET", "Photo"),
    ])
    func aBadValueIsRefusedByName(variable: String, value: String) {
        #expect {
            _ = try ServeEnvironment([variable: value])
        } throws: { error in
            (error as? ServeEnvironmentError)?.variable == variable && "\(error)".contains(variable)
        }
    }

    /// Through the server: baseline JPEG by default (imgproxy's), progressive (SOF2) when set.
    @Test func jpegProgressiveWritesSOF2() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.set("/a.jpg", data: try Fixtures.jpeg(width: 120, height: 90, seed: 2), contentType: "image/jpeg")
        let path = ServerTests.path("w:100/f:jpeg", origin.url(for: "/a.jpg"))
        var configuration = ServerTests.local
        let baseline = try await withServer(configuration) { try await $0.get(path) }
        #expect(baseline.status == 200)
        #expect(Self.hasFrame(0xC0, in: baseline.body) && !Self.hasFrame(0xC2, in: baseline.body))
        try ServeEnvironment(["IMGPROXY_JPEG_PROGRESSIVE": "true"]).apply(to: &configuration)
        let progressive = try await withServer(configuration) { try await $0.get(path) }
        #expect(progressive.status == 200)
        #expect(Self.hasFrame(0xC2, in: progressive.body) && !Self.hasFrame(0xC0, in: progressive.body))
        #expect(JPEGScanCounter.scanCount(of: progressive.body, stoppingAfter: 100) > 1)
    }

    /// IHDR's interlace byte: 0 by default, 1 (Adam7) when set; the pixels are the same.
    @Test func pngInterlacedSetsAdam7() throws {
        let plain = try Self.encoded(.png, [:], transparent: true)
        let interlaced = try Self.encoded(.png, ["IMGPROXY_PNG_INTERLACED": "true"], transparent: true)
        #expect(Self.chunk("IHDR", in: plain)?[12] == 0)
        #expect(Self.chunk("IHDR", in: interlaced)?[12] == 1)
        #expect(Self.chunk("IHDR", in: interlaced)?[9] == 6, "RGBA kept")
        let a = try ImageDecoder.decode(plain).bitmap()
        let b = try ImageDecoder.decode(interlaced).bitmap()
        #expect(a.pixels == b.pixels)
    }

    /// A palette PNG (colour type 3) with at most the colours asked in PLTE; translucent entries in
    /// tRNS; the picture still close to the original.
    @Test func pngQuantizeWritesAPalette() throws {
        let plain = try Self.encoded(.png, [:], transparent: true)
        #expect(Self.chunk("IHDR", in: plain)?[9] == 6 && Self.chunk("PLTE", in: plain) == nil)
        let quantized = try Self.encoded(
            .png, ["IMGPROXY_PNG_QUANTIZE": "true", "IMGPROXY_PNG_QUANTIZATION_COLORS": "16"], transparent: true)
        #expect(Self.chunk("IHDR", in: quantized)?[9] == 3)
        let palette = try #require(Self.chunk("PLTE", in: quantized))
        #expect(palette.count % 3 == 0 && palette.count / 3 <= 16 && palette.count / 3 > 1)
        #expect(Self.chunk("tRNS", in: quantized) != nil, "the transparent corners")
        #expect(quantized.count < plain.count)
        let original = Fixtures.picture(width: 64, height: 48, seed: 5, transparent: true)
        let decoded = try ImageDecoder.decode(quantized).bitmap()
        #expect(decoded.width == 64 && decoded.height == 48)
        // The centre (opaque) is within a palette step of the original.
        let (want, got) = (original.straightAlphaPixels, decoded.straightAlphaPixels)
        let centre = (24 * 64 + 32) * 4
        #expect(want[centre + 3] == 255 && got[centre + 3] == 255)
        for channel in 0..<3 { #expect(abs(Int(want[centre + channel]) - Int(got[centre + channel])) < 96) }
    }

    /// A picture with no more colours than the palette holds is kept exactly.
    @Test func quantizingFewColoursIsLossless() throws {
        var bitmap = Bitmap(width: 8, height: 4, fill: RGBA(255, 0, 0, 255))
        for x in 0..<4 { bitmap[x, 1] = RGBA(0, 0, 255, 255) }
        bitmap[7, 3] = RGBA(0, 0, 0, 0)
        let data = try PNGEncoder(paletteColors: 3).encode(bitmap)
        #expect(Self.chunk("PLTE", in: data)?.count == 9)
        #expect(try ImageDecoder.decode(data).bitmap().straightAlphaPixels == bitmap.straightAlphaPixels)
    }

    /// A picture of more colours than are counted exactly (40,000, one a pixel) still gets a full
    /// palette, opaque, each pixel near its colour.
    @Test func quantizingAPhotographCountsBuckets() throws {
        var bitmap = Bitmap(width: 200, height: 200, fill: RGBA(0, 0, 0, 255))
        for y in 0..<200 {
            for x in 0..<200 {
                let blue: Int = (x * 7 + y * 13) % 256
                bitmap[x, y] = RGBA(UInt8(x), UInt8(y), UInt8(blue), 255)
            }
        }
        let (palette, indices) = PaletteQuantizer(maximumColors: 256).quantize(bitmap.pixels)
        #expect(palette.count == 256 * 4 && indices.count == 40_000)
        #expect(stride(from: 3, to: palette.count, by: 4).allSatisfy { palette[$0] == 255 })
        var worst = 0
        for pixel in stride(from: 0, to: 40_000, by: 97) {
            let entry = Int(indices[pixel]) * 4
            for channel in 0..<3 {
                let difference: Int = Int(bitmap.pixels[pixel * 4 + channel]) - Int(palette[entry + channel])
                worst = max(worst, abs(difference))
            }
        }
        #expect(worst < 64, "median cut keeps every colour within a box of its entry")
    }

    /// libwebp's method changes the bytes: effort 1 and 6 differ; the default is effort 4.
    @Test func webpEffortChangesTheEncoding() throws {
        let fast = try Self.encoded(.webp, ["IMGPROXY_WEBP_EFFORT": "1"])
        let thorough = try Self.encoded(.webp, ["IMGPROXY_WEBP_EFFORT": "6"])
        let standard = try Self.encoded(.webp, [:])
        #expect(fast != thorough)
        #expect(standard == (try Self.encoded(.webp, ["IMGPROXY_WEBP_EFFORT": "4"])))
        #expect(standard != fast && standard != thorough)
        for data in [fast, thorough] { #expect(try ImageDecoder.decode(data).bitmap().width == 64) }
    }

    /// `IMGPROXY_WEBP_PRESET` reaches the encoder: `default` unless set, `drawing` writes other
    /// bytes than `photo`, and an unknown name is refused with the names allowed.
    @Test func webpPresetReachesTheEncoder() throws {
        #expect(try Self.settings([:]).webpPreset == .default)
        #expect(try Self.settings(["IMGPROXY_WEBP_PRESET": "icon"]).webpPreset == .icon)
        #expect(try Self.encoded(.webp, [:]) == (try Self.encoded(.webp, ["IMGPROXY_WEBP_PRESET": "default"])))
        let drawing = try Self.encoded(.webp, ["IMGPROXY_WEBP_PRESET": "drawing"])
        #expect(drawing != (try Self.encoded(.webp, ["IMGPROXY_WEBP_PRESET": "photo"])))
        #expect(try ImageDecoder.decode(drawing).bitmap().width == 64)
        #expect {
            _ = try ServeEnvironment(["IMGPROXY_WEBP_PRESET": "sketch"])
        } throws: { error in
            "\(error)".contains("default, picture, photo, drawing, icon, text") && "\(error)".contains("sketch")
        }
    }

    /// Animated WebP takes the effort and the preset too.
    @Test func webpEffortReachesAnimations() throws {
        let durations: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(100)]
        let container = try ImageDecoder.decode(try Fixtures.animatedGIF(width: 48, height: 32, durations: durations, loopCount: 0))
        func animation(_ environment: [String: String]) throws -> Data {
            try container.encodedAnimation(as: ImageFormat.webp, quality: 0.8, webpEffort: Self.settings(environment).webpEffort)
        }
        let fast = try animation(["IMGPROXY_WEBP_EFFORT": "1"])
        let thorough = try animation(["IMGPROXY_WEBP_EFFORT": "6"])
        #expect(fast != thorough)
        #expect(try animation([:]) == (try container.encodedAnimation(as: ImageFormat.webp, quality: 0.8)), "4 by default, as before")
        #expect(try ImageDecoder.decode(thorough).frames.count == 3)
        // And the preset.
        let preset = try Self.settings(["IMGPROXY_WEBP_PRESET": "drawing"]).webpPreset
        let drawing = try container.encodedAnimation(as: ImageFormat.webp, quality: 0.8, webpEffort: 4, webpPreset: preset)
        #expect(drawing != (try animation([:])))
        #expect(try ImageDecoder.decode(drawing).frames.count == 3)
    }

    /// libavif's speed changes the bytes: the default is imgproxy's 8.
    @Test(.enabled(if: AVIFEncoder.isAvailable)) func avifSpeedChangesTheEncoding() throws {
        let standard = try Self.encoded(.avif, [:])
        #expect(standard == (try Self.encoded(.avif, ["IMGPROXY_AVIF_SPEED": "8"])))
        let slower = try Self.encoded(.avif, ["IMGPROXY_AVIF_SPEED": "4"])
        #expect(slower != standard)
        #expect(try ImageDecoder.decode(slower).bitmap().width == 64)
    }
}
#endif
