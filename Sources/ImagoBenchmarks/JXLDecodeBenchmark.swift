import Foundation
import Imago
import ImagoTestSupport

/// JPEG XL decoding (issue 41): a 12-megapixel lossy JXL made in the run by `cjxl -d 1` (VarDCT,
/// default effort) from a PNG Imago writes of the benchmarks' generated picture, decoded by
/// `ImageDecoder.decode` (full size, and for a 256-pixel target) against `djxl` of the same libjxl
/// as a child process.
///
/// Like with like: both single-threaded (Imago's decoder gives libjxl no parallel runner; djxl gets
/// `--num_threads=1`), both in CPU time: ours the whole process's around the decode, djxl's from
/// `RUSAGE_CHILDREN` minus its CPU on a 16x16 JXL (start-up). djxl writes an 8-bit PPM into a
/// symbolic link to /dev/null (it picks the format by the name's extension), so it pays the
/// conversion to 8 bits but no file. djxl at its default thread count is measured too, its CPU
/// time beside.
enum JXLDecodeBenchmark {
    static let target = 256

    static func run(_ context: BenchmarkContext) throws -> [Figure] {
        guard let cjxl = ExternalPrograms.find("cjxl"), let djxl = ExternalPrograms.djxl else {
            throw BenchmarkSkip(message: "jxl-decode: cjxl or djxl not found (Debian: apt-get install libjxl-tools)")
        }
        var (width, height) = context.quick ? (400, 300) : (GainMapBenchmark.width, GainMapBenchmark.height)
        // A photograph of yours (IMAGO_BENCH_PHOTO) in place of the generated picture: its pixels
        // written as PNG, then compressed by cjxl like the picture.
        let photo = context.quick ? nil : ProcessInfo.processInfo.environment["IMAGO_BENCH_PHOTO"].flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
        let directory = context.directory
        let source = directory.appendingPathComponent("jxl-source.png")
        let tinySource = directory.appendingPathComponent("jxl-tiny.png")
        let file = directory.appendingPathComponent("photo.jxl")
        let tiny = directory.appendingPathComponent("tiny.jxl")
        let sink = directory.appendingPathComponent("null.ppm")
        if let photo {
            let bitmap = try ImageDecoder.decode(photo).bitmap()
            (width, height) = (bitmap.width, bitmap.height)
            try PNGEncoder().encode(bitmap).write(to: source)
        } else {
            try Fixtures.png(width: width, height: height).write(to: source)
        }
        try Fixtures.png(width: 16, height: 16).write(to: tinySource)
        try? FileManager.default.removeItem(at: sink)
        try FileManager.default.createSymbolicLink(atPath: sink.path, withDestinationPath: "/dev/null")
        for (input, output) in [(source, file), (tinySource, tiny)] {
            let made = try ThumbnailBenchmark.spawn(cjxl, [input.path, output.path, "-d", "1"])
            guard FileManager.default.fileExists(atPath: output.path) else {
                throw BenchmarkSkip(message: "jxl-decode: cjxl made no file: \(made.output)")
            }
        }
        let jxl = try Data(contentsOf: file)
        let size = (width * height >= 1_000_000 ? String(format: "%.0f MP (%dx%d)", Double(width * height) / 1e6, width, height) : "\(width)x\(height)")
            + (photo == nil ? "" : " photo")

        func djxlRun(threads: Int) -> () throws -> Double {
            {
                let arguments = ["--num_threads=\(threads)", "--quiet"]
                let full = try childrenCPUTime { try runTool(djxl, [file.path, sink.path] + arguments) }
                let startup = try childrenCPUTime { try runTool(djxl, [tiny.path, sink.path] + arguments) }
                return (full - startup) * 1000
            }
        }
        var figures: [Figure] = []
        for targetSize in [nil, target] as [Int?] {
            var decodedSize = PixelSize(width: 0, height: 0)
            let ours: () throws -> Double = {
                var image: ImageContainer?
                let cpu = try processCPUTime { image = try ImageDecoder.decode(jxl, maximumPixelSize: targetSize) }
                decodedSize = image?.pixelSize ?? decodedSize
                return cpu * 1000
            }
            let contenders = [ours, djxlRun(threads: 1), djxlRun(threads: 0)]
            _ = try contenders.map { try $0() }  // warm up
            let m = try Interleaved(repetitions: context.repetitions).run(contenders)
            let name =
                targetSize.map { "JXL \(size) lossy (cjxl -d 1), decode, target \($0) (→ \(decodedSize)): CPU" }
                ?? "JXL \(size) lossy (cjxl -d 1, \(jxl.count / 1024) KB), full decode to RGBA: CPU"
            figures.append(
                Figure(
                    benchmark: "jxl", name: name, unit: "ms", higherIsBetter: false, ours: m[0],
                    baselineName: "djxl --num_threads=1 (libjxl 0.7, full size, 8-bit PPM to /dev/null), CPU minus start-up",
                    baseline: m[1], extra: [("djxl, default threads, CPU", m[2])], repetitions: context.repetitions))
        }
        return figures
    }
}
