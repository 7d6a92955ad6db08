import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// JPEG XL: recognised by its codestream or container signature, sized from its `SizeHeader`
/// without a codec, decoded by libjxl within the limits (Linux), and compared with `djxl`'s own
/// decoding of the same fixture (`Fixtures/jxl`, made by Debian's cjxl: make-jxl-fixtures.py).
@Suite struct JXLDecodingTests {
    /// The fixtures with their stored size and the least PSNR (dB, over premultiplied RGBA) against
    /// djxl's decoding: lossless files match exactly (the colour-managed one passes through the
    /// same Little CMS transform on both sides), lossy ones differ where libjxl's XYB-to-sRGB
    /// conversion and djxl's (to the original profile, then Imago's Little CMS) round differently.
    static let fixtures: [(file: String, width: Int, height: Int, minimumPSNR: Double)] = [
        ("jxl-lossless", 32, 24, .infinity), ("jxl-alpha", 32, 24, .infinity), ("jxl-gray", 32, 24, .infinity),
        ("jxl-container", 32, 24, .infinity), ("jxl-rgba16", 32, 24, .infinity), ("jxl-adobergb", 64, 48, 45),
        ("jxl-lossy", 64, 48, 40), ("jxl-lossy-alpha", 32, 24, 40), ("jxl-adobergb-lossy", 64, 48, 35),
        ("jxl-animated", 32, 24, .infinity),
    ]

    static func data(_ name: String) throws -> Data { try Fixture.data("jxl/\(name).jxl") }

    /// A bare codestream whose `SizeHeader` declares `width` x `height` (30-bit fields, no ratio)
    /// and whose metadata is all default, followed by `padding` zero bytes: enough for libjxl to
    /// report the basic info, nothing to decode.
    static func declaring(width: Int, height: Int, padding: Int = 32) -> Data {
        var bits: [Int] = []
        func put(_ value: Int, _ count: Int) { for index in 0..<count { bits.append((value >> index) & 1) } }
        put(0, 1)  // not small
        put(3, 2)
        put(height - 1, 30)
        put(0, 3)  // no fixed ratio
        put(3, 2)
        put(width - 1, 30)
        put(1, 1)  // ImageMetadata.all_default
        var bytes: [UInt8] = [0xFF, 0x0A]
        for start in stride(from: 0, to: bits.count, by: 8) {
            let byte = bits[start..<min(start + 8, bits.count)].enumerated().reduce(0) { $0 | $1.element << $1.offset }
            bytes.append(UInt8(byte))
        }
        return Data(bytes + [UInt8](repeating: 0, count: padding))
    }

    /// The frames of an APNG whose frames all cover the canvas (as djxl writes a coalesced
    /// animation), each as a still PNG with the file's other chunks (its colour), and its delay in
    /// milliseconds: Imago's PNG decoder shows an APNG's default image only.
    static func apngFrames(_ data: Data) -> [(png: Data, milliseconds: Int)] {
        let bytes = [UInt8](data)
        var head: [UInt8] = Array(bytes.prefix(8)), frames: [(png: Data, milliseconds: Int)] = []
        var current: [UInt8] = [], delay = 0
        func finish() {
            if !current.isEmpty { frames.append((Data(head + current + PNGBuilder.chunk("IEND", [])), delay)) }
            current = []
        }
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let payload = Array(bytes[offset + 8..<offset + 8 + length])
            switch type {
            case "fcTL":
                finish()
                let numerator = Int(payload[20]) << 8 | Int(payload[21])
                let denominator = Int(payload[22]) << 8 | Int(payload[23])
                delay = numerator * 1_000 / (denominator == 0 ? 100 : denominator)
            case "IDAT": current += PNGBuilder.chunk("IDAT", payload)
            case "fdAT": current += PNGBuilder.chunk("IDAT", Array(payload.dropFirst(4)))
            case "IEND": finish()
            case "acTL": break
            default: head += Array(bytes[offset..<offset + 12 + length])
            }
            offset += 12 + length
        }
        return frames
    }

    @Test func sniffsCodestreamAndContainer() throws {
        #expect(ImageFormat.sniff(try Self.data("jxl-lossless")) == .jxl)
        #expect(ImageFormat.sniff(try Self.data("jxl-container")) == .jxl)
        #expect(ImageFormat.sniff([0xFF, 0x0A]) == .jxl)
        #expect(ImageFormat.sniff([0xFF, 0x0B, 0x00]) == nil)
        #expect(ImageFormat.jxl.mimeType == "image/jxl")
        #expect(ImageDecoderRegistry().canDecode(.jxl))
    }

    @Test(arguments: fixtures)
    func headerDeclaresTheSize(_ fixture: (file: String, width: Int, height: Int, minimumPSNR: Double)) throws {
        let header = try #require(ImageHeader.probe(try Self.data(fixture.file)))
        #expect(header == ImageHeader(format: .jxl, width: fixture.width, height: fixture.height))
    }

    @Test(arguments: [(9, 8), (65_500, 3), (1, 1_000_000_000)])
    func headerReadsLongFields(width: Int, height: Int) throws {
        let header = try #require(ImageHeader.probe(Self.declaring(width: width, height: height)))
        #expect(header.width == width && header.height == height)
        // Cut inside the size header: no size, never a wrong one.
        #expect(ImageHeader.probe(Self.declaring(width: width, height: height, padding: 0).prefix(6)) == nil)
    }

    /// The codestream of jxl-lossless split over two `jxlp` boxes after `firstPart` bytes.
    static func splitContainer(firstPart: Int) throws -> Data {
        let codestream = [UInt8](try data("jxl-lossless"))
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            PNGBuilder.be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
        }
        let fileType = box("ftyp", Array("jxl ".utf8) + [0, 0, 0, 0] + Array("jxl ".utf8))
        let first = box("jxlp", PNGBuilder.be32(0) + Array(codestream.prefix(firstPart)))
        let last = box("jxlp", PNGBuilder.be32(0x8000_0001) + Array(codestream.dropFirst(firstPart)))
        return Data(ImageFormat.jxlContainerSignature + fileType + first + last)
    }

    /// A size header that `jxlp` boxes split is not read across them (no size rather than one made
    /// of the next box's header); one whole in the first part is.
    @Test func splitCodestreamIsSizedOnlyFromItsFirstPart() throws {
        #expect(ImageHeader.probe(try Self.splitContainer(firstPart: 3)) == nil)
        let whole = try #require(ImageHeader.probe(try Self.splitContainer(firstPart: 40)))
        #expect(PixelSize(width: whole.width, height: whole.height) == PixelSize(width: 32, height: 24))
        #if os(Linux)
        // libjxl joins the parts: the same pixels as the bare codestream.
        let joined = try ImageDecoder.decode(try Self.splitContainer(firstPart: 3)).bitmap()
        #expect(joined.pixels == (try ImageDecoder.decode(try Self.data("jxl-lossless")).bitmap().pixels))
        #endif
    }

    #if os(Linux)
    /// jxl-rgba16 is left to ``FixtureDecodingTests`` (its source PNG's pixels): djxl 0.7 fails to
    /// write its 16-bit alpha to PNG, and writes wrong values when asked for 8 bits.
    @Test(.enabled(if: ExternalPrograms.runs(ExternalPrograms.djxl)), arguments: fixtures.filter { $0.file != "jxl-rgba16" })
    func matchesDjxl(_ fixture: (file: String, width: Int, height: Int, minimumPSNR: Double)) async throws {
        let djxl = try #require(ExternalPrograms.djxl, "install Debian's libjxl-tools (djxl)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jxl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("in.jxl"), reference = folder.appendingPathComponent("out.png")
        try Self.data(fixture.file).write(to: source)
        let result = try await CommandRunner.run(
            URL(fileURLWithPath: djxl), arguments: [source.path, reference.path, "--num_threads=1"])
        #expect(result.exited(with: 0), "djxl: \(result.errorOutput)")

        let written = Self.apngFrames(try Data(contentsOf: reference))
        let expectedFrames = try written.map { try ImageDecoder.decode($0.png).bitmap() }
        let decoded = try ImageDecoder.decode(try Self.data(fixture.file))
        #expect(decoded.format == .jxl)
        let frames = decoded.frames.isEmpty ? [try decoded.bitmap()] : try decoded.frames.map { try $0.bitmap() }
        #expect(frames.count == expectedFrames.count)
        if frames.count > 1 { #expect(decoded.frames.map(\.duration) == written.map { .milliseconds($0.milliseconds) }) }
        for (index, (frame, reference)) in zip(frames, expectedFrames).enumerated() {
            #expect(frame.width == fixture.width && frame.height == fixture.height, "frame \(index)")
            let psnr = peakSignalToNoise(frame, reference)
            #expect(psnr >= fixture.minimumPSNR, "frame \(index): \(psnr) dB against djxl")
            #expect(frame.alphaMode == reference.alphaMode, "frame \(index)")
        }
    }

    @Test func animationKeepsItsTiming() throws {
        let container = try ImageDecoder.decode(try Self.data("jxl-animated"))
        #expect(container.frames.map(\.duration) == [100, 50, 200, 100].map { .milliseconds($0) })
        #expect(container.loopCount == 0)
        #expect(try container.bitmap().alphaMode == .straight)
        let first = try ImageDecoder.decode(try Self.data("jxl-animated"), decodesAllFrames: false)
        #expect(first.frames.isEmpty)
        #expect(try first.bitmap().pixels == container.frames[0].bitmap().pixels)
    }

    @Test func profileConvertsOrIsKept() throws {
        let data = try Self.data("jxl-adobergb")
        let converted = try ImageDecoder.decode(data).bitmap()
        let kept = try ImageDecoder.decode(data, colorProfileHandling: .keep)
        let profile = try #require(kept.colorProfile, "the Adobe RGB profile is carried when kept")
        #expect(profile.description.localizedCaseInsensitiveContains("adobe"))
        // Adobe RGB's pixels read as sRGB are far from the converted ones.
        #expect(peakSignalToNoise(converted, try kept.bitmap()) < 35)
        // Lossy (XYB): libjxl itself delivers sRGB, far closer to the lossless file converted than
        // to its Adobe RGB values.
        let lossy = try ImageDecoder.decode(try Self.data("jxl-adobergb-lossy"))
        #expect(lossy.colorProfile == nil)
        let toConverted = peakSignalToNoise(try lossy.bitmap(), converted)
        let toKept = peakSignalToNoise(try lossy.bitmap(), try kept.bitmap())
        #expect(toConverted > toKept + 6, "\(toConverted) dB to the converted pixels, \(toKept) dB to the kept ones")
    }

    @Test func reducesToATarget() throws {
        let container = try ImageDecoder.decode(try Self.data("jxl-lossy"), maximumPixelSize: 8)
        let bitmap = try container.bitmap()
        #expect(PixelSize(width: bitmap.width, height: bitmap.height) == PixelSize(width: 16, height: 12))
        let animated = try ImageDecoder.decode(try Self.data("jxl-animated"), maximumPixelSize: 4)
        #expect(try animated.frames.map { try $0.bitmap().width } == [8, 8, 8, 8])  // 32 / 4, twice the target
    }

    /// A header declaring a side over the source limit is refused from the `SizeHeader` alone; one
    /// within the source limits but over the pixel limit is refused from libjxl's basic info,
    /// before any pixel memory exists.
    @Test func hugeHeaderIsRefusedBeforeDecoding() throws {
        let wide = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(Self.declaring(width: 100_000, height: 100_000))
        }
        #expect(wide == .limitExceeded(nil, .sourceDimension(width: 100_000, height: 100_000, limit: 65_500)))
        let many = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(Self.declaring(width: 20_000, height: 20_000))
        }
        #expect(many == .limitExceeded(nil, .pixelCount(width: 20_000, height: 20_000, limit: 100_000_000)))
    }

    @Test func animationLimitsApplyFrameByFrame() throws {
        var limits = DecodingLimits()
        limits.maximumFrameCount = 2
        let frames = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(try Self.data("jxl-animated"), limits: limits)
        }
        #expect(frames == .limitExceeded(nil, .frameCount(count: 3, limit: 2)))
        limits = DecodingLimits()
        limits.maximumTotalFramePixels = 32 * 24 * 3
        let pixels = #expect(throws: ImagePipeline.Error.self) {
            try ImageDecoder.decode(try Self.data("jxl-animated"), limits: limits)
        }
        #expect(pixels == .limitExceeded(nil, .totalFramePixels(count: 32 * 24 * 4, limit: 32 * 24 * 3)))
    }

    /// Cut inside the headers, inside the first frame's data and near the end: an error that names
    /// libjxl and the damage, never a crash.
    @Test(arguments: ["jxl-lossy", "jxl-container", "jxl-animated", "jxl-adobergb"], [20, 0.5, 0.97])
    func truncatedFileFailsWithReason(_ name: String, cut: Double) throws {
        let data = try Self.data(name)
        let kept = cut >= 1 ? Int(cut) : Int(Double(data.count) * cut)
        let error = #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(data.prefix(kept)) }
        guard case .decodingFailed(_, let format, let reason)? = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(format == .jxl)
        #expect(reason.contains("libjxl"), "\(reason)")
    }
    #endif
}
