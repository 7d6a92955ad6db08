import Foundation
import Imago
import ImagoTestSupport

/// What a gain map costs (issue 41): a 12-megapixel gain-map JPEG against the very same base JPEG
/// bytes without the map, interleaved, medians of the whole process's CPU time:
/// - through the pipeline to a 256-pixel thumbnail (`ImageRequest(url:maximumPixelSize:)`): the
///   map is found, decoded at the base's DCT scale and thumbnailed beside it;
/// - the same, then `encoded(as: .jpeg)`, which writes the map back (MPF, `hdrgm` XMP, ISO 21496-1).
///
/// The files are made in the run. Ours: the benchmarks' generated 4032x3024 picture (or the JPEG
/// photograph `IMAGO_BENCH_PHOTO` names) as the base, and
/// a single-channel map of a quarter of each side (1008x756, as Android cameras write it) derived
/// from the base's luminance, written by `GainMapJPEGWriter` with a content boost of 4 (2 stops),
/// gamma 1. A third-party file too when `IMAGO_BENCH_PYTHON` has pyvips: libvips 8.18's `uhdrsave`
/// (libultrahdr) of an HDR rendition of the same base; its baseline is its own primary image with
/// the gain-map segments (XMP, ISO 21496-1, MPF) and the map removed.
enum GainMapBenchmark {
    static let target = 256
    static let width = 4032
    static let height = 3024

    /// `uhdr <base.jpg> <out.jpg>`: an HDR rendition of the base (linear light boosted by up to 4x
    /// with its luminance) saved by libultrahdr, which computes the SDR base and the map itself.
    static let script = #"""
    import sys, pyvips
    base = pyvips.Image.new_from_file(sys.argv[2])
    linear = base.colourspace("scrgb")
    luma = linear[0] * 0.2126 + linear[1] * 0.7152 + linear[2] * 0.0722
    hdr = (linear * (1 + 3 * luma)).copy(interpretation="scrgb")
    hdr.uhdrsave(sys.argv[3])
    print("ok", "%d.%d.%d" % tuple(pyvips.version(i) for i in range(3)), flush=True)
    """#

    static func run(_ context: BenchmarkContext) async throws -> [Figure] {
        let (width, height) = context.quick ? (400, 300) : (Self.width, Self.height)
        // A photograph of yours (IMAGO_BENCH_PHOTO, a JPEG) in place of the generated picture.
        let photo = context.quick ? nil : ProcessInfo.processInfo.environment["IMAGO_BENCH_PHOTO"].flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
        let plain = try photo ?? Fixtures.jpeg(width: width, height: height)
        guard let header = ImageHeader.probe(plain), header.format == .jpeg else {
            throw BenchmarkSkip(message: "gain-map: IMAGO_BENCH_PHOTO is not a JPEG")
        }
        let gainMap = try luminanceMap(of: plain)
        let withMap = try GainMapJPEGWriter.write(gainMap, base: plain, quality: 0.85)
        guard stripped(withMap) == plain else {
            throw BenchmarkSkip(message: "gain-map: the written file's primary image is not the base's bytes (a photo with XMP or MPF segments of its own?)")
        }
        let what = photo == nil ? "JPEG" : "JPEG photo (\(plain.count / 1024) KB)"
        var sources: [(label: String, withMap: Data, plain: Data)] = [
            ("\(what) \(sizeLabel(header.width, header.height)) with a \(gainMap.pixelSize.width)x\(gainMap.pixelSize.height) gain map (GainMapJPEGWriter)", withMap, plain)
        ]
        if let third = try thirdPartyFile(base: plain, context: context) { sources.append(third) }

        var figures: [Figure] = []
        for (index, source) in sources.enumerated() {
            let files = ["/\(index)-map.jpg": source.withMap, "/\(index)-plain.jpg": source.plain]
            let pipeline = ImagePipeline(configuration: .init(dataLoader: MemoryLoader(files: files), memoryCache: nil))
            func request(_ path: String) -> ImageRequest {
                ImageRequest(url: URL(string: "http://bench.invalid\(path)")!, maximumPixelSize: target)
            }
            // Before timing: the map must come through the thumbnail and into the encoded file.
            let thumbnail = try await pipeline.image(for: request("/\(index)-map.jpg")).container
            guard let map = thumbnail.gainMap else {
                throw BenchmarkSkip(message: "gain-map: the thumbnail of \(source.label) has no gain map")
            }
            guard try ImageDecoder.decode(try thumbnail.encoded(as: .jpeg)).gainMap != nil else {
                throw BenchmarkSkip(message: "gain-map: the thumbnail of \(source.label) was encoded without its map")
            }
            let plainThumbnail = try await pipeline.image(for: request("/\(index)-plain.jpg")).container
            guard plainThumbnail.gainMap == nil, plainThumbnail.pixelSize == thumbnail.pixelSize else {
                throw BenchmarkSkip(message: "gain-map: the baseline of \(source.label) is not the same image without a map")
            }
            for encodes in [false, true] {
                func contender(_ path: String) -> () async throws -> Double {
                    {
                        try await processCPUTime {
                            let container = try await pipeline.image(for: request(path)).container
                            if encodes { blackHole(try container.encoded(as: .jpeg)) }
                        } * 1000
                    }
                }
                let contenders = [contender("/\(index)-map.jpg"), contender("/\(index)-plain.jpg")]
                for warm in contenders { _ = try await warm() }
                let m = try await Interleaved(repetitions: context.repetitions).run(contenders)
                let what = encodes ? "pipeline thumbnail \(target) + encoded(as: .jpeg)" : "pipeline thumbnail \(target)"
                figures.append(
                    Figure(
                        benchmark: "gain-map", name: "\(source.label), \(what): CPU", unit: "ms", higherIsBetter: false,
                        ours: m[0], baselineName: "the same base JPEG without the map (\(source.plain.count / 1024) KB)",
                        baseline: m[1],
                        extra: [("file with the map, KB", Double(source.withMap.count) / 1024),
                                ("thumbnail's map, px", Double(map.pixelSize.width * map.pixelSize.height))],
                        repetitions: context.repetitions))
            }
        }
        return figures
    }

    /// A single-channel map of a quarter of each side: the base's luminance at 1/4 (libjpeg's DCT
    /// scaling), squared, so highlights get up to 2 stops and shadows none.
    static func luminanceMap(of base: Data) throws -> GainMap {
        let quarter = try ImageDecoder.decode(base, maximumPixelSize: max(longerSide(of: base) / 4, 1)).bitmap()
        var pixels = [UInt8](repeating: 255, count: quarter.width * quarter.height * 4)
        let source = quarter.pixels
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            let luma = (0.2126 * Double(source[offset]) + 0.7152 * Double(source[offset + 1]) + 0.0722 * Double(source[offset + 2])) / 255
            let value = UInt8(min(max((luma * luma * 255).rounded(), 0), 255))
            pixels[offset] = value
            pixels[offset + 1] = value
            pixels[offset + 2] = value
        }
        let bitmap = Bitmap(width: quarter.width, height: quarter.height, alphaMode: .opaque, pixels: pixels)
        let metadata = GainMap.Metadata(
            channels: [GainMap.Metadata.Channel(gainMapMin: 0, gainMapMax: 2, gamma: 1)], baseHeadroom: 0, alternateHeadroom: 2)
        return GainMap(bitmap: bitmap, metadata: metadata)
    }

    private static func longerSide(of jpeg: Data) -> Int { ImageHeader.probe(jpeg).map { max($0.width, $0.height) } ?? 1 }

    private static func sizeLabel(_ width: Int, _ height: Int) -> String {
        width * height >= 1_000_000 ? String(format: "%.0f MP (%dx%d)", Double(width * height) / 1e6, width, height) : "\(width)x\(height)"
    }

    /// libvips' `uhdrsave` file of the same base and its stripped primary image, or nil (said on
    /// stderr) when `IMAGO_BENCH_PYTHON` has no pyvips with `uhdrsave`.
    private static func thirdPartyFile(base: Data, context: BenchmarkContext) throws -> (label: String, withMap: Data, plain: Data)? {
        let python = ProcessInfo.processInfo.environment["IMAGO_BENCH_PYTHON"] ?? "/usr/bin/python3"
        let scriptPath = context.directory.appendingPathComponent("imago_gainmap_uhdr.py")
        let basePath = context.directory.appendingPathComponent("gainmap-base.jpg")
        let outPath = context.directory.appendingPathComponent("gainmap-uhdrsave.jpg")
        try script.write(to: scriptPath, atomically: true, encoding: .utf8)
        try base.write(to: basePath)
        let made = try? ThumbnailBenchmark.spawn(python, [scriptPath.path, "uhdr", basePath.path, outPath.path])
        guard let made, made.output.hasPrefix("ok"), let file = try? Data(contentsOf: outPath) else {
            context.note("gain-map: no file from libvips' uhdrsave (\(python) needs pyvips with pyvips-binary 8.18; set IMAGO_BENCH_PYTHON): only Imago's own gain-map file is measured")
            return nil
        }
        guard let plain = stripped(file), let header = ImageHeader.probe(file),
            let map = try? ImageDecoder.decode(file).gainMap
        else {
            throw BenchmarkSkip(message: "gain-map: Imago found no gain map in libvips' uhdrsave file")
        }
        let version = made.output.split(whereSeparator: \.isWhitespace).dropFirst().first.map(String.init) ?? "?"
        let label = "JPEG \(sizeLabel(header.width, header.height)) with a \(map.pixelSize.width)x\(map.pixelSize.height) gain map (libvips \(version) uhdrsave)"
        return (label, file, plain)
    }

    /// The primary image of a gain-map JPEG without what makes it one: its APP1 XMP and APP2
    /// ISO 21496-1 and MPF segments, and everything after its EOI (the map). Nil when the
    /// segments do not parse.
    static func stripped(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var out: [UInt8] = [0xFF, 0xD8]
        var index = 2
        var inScan = false
        while index + 1 < bytes.count {
            if inScan {
                // Entropy-coded data: a marker is FF followed by neither 00 (stuffing) nor RSTn.
                guard bytes[index] == 0xFF, bytes[index + 1] != 0x00, !(0xD0...0xD7).contains(bytes[index + 1]) else {
                    out.append(bytes[index])
                    index += 1
                    continue
                }
                inScan = false
            }
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF { index += 1; continue }  // fill byte
            if marker == 0xD9 { return Data(out + [0xFF, 0xD9]) }
            guard index + 3 < bytes.count else { return nil }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { return nil }
            let body = bytes[(index + 4)..<(index + 2 + length)]
            let gainMapSegment =
                (marker == 0xE1 && body.starts(with: Array("http://ns.adobe.com/xap/1.0/\0".utf8)))
                || (marker == 0xE2 && (body.starts(with: Array("MPF\0".utf8)) || body.starts(with: Array("urn:iso:std:iso:ts:21496:-1\0".utf8))))
            if !gainMapSegment { out += bytes[index..<(index + 2 + length)] }
            index += 2 + length
            if marker == 0xDA { inScan = true }
        }
        return nil
    }
}
