import Foundation
import Imago
import ImagoTestSupport

/// What colour management costs: a 12-megapixel JPEG carrying a Display P3 profile against the same
/// file without it, interleaved, medians of CPU time:
/// - through the pipeline, thumbnailed to 256 (decoded at the DCT scale, thumbnailed, then
///   converted at the output size), the path of `ImageRequest(url:maximumPixelSize:)`;
/// - `ImageDecoder.decode(_:maximumPixelSize:)` then `ThumbnailProcessor`, where the conversion runs
///   at the DCT-scaled size, as it must for a caller that decodes by itself;
/// - a full decode, every pixel converted.
///
/// The source is the benchmarks' generated 12 MP picture, or the JPEG named by `IMAGO_BENCH_PHOTO`
/// (a phone-sized photograph: its entropy decoding costs more, so the conversion's share is smaller).
enum ColorProfileBenchmark {
    static let target = 256

    /// The Display P3 profile of the colour fixtures (built by Little CMS from P3's primaries),
    /// read from the repository: the benchmark runs from its root.
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/ImagoTests/Fixtures/colour/displayp3.jpg").standardizedFileURL

    static func run(_ context: BenchmarkContext) async throws -> [Figure] {
        guard let source = try? Data(contentsOf: fixture), let profile = ImageHeader.details(source)?.colorProfile else {
            throw BenchmarkSkip(message: "colour-profile: no Display P3 fixture at \(fixture.path)")
        }
        let photo = ProcessInfo.processInfo.environment["IMAGO_BENCH_PHOTO"].flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
        let plain = try photo ?? Fixtures.jpeg(
            width: context.quick ? 400 : CodecBenchmark.width, height: context.quick ? 300 : CodecBenchmark.height)
        guard let header = ImageHeader.probe(plain), header.format == .jpeg else {
            throw BenchmarkSkip(message: "colour-profile: IMAGO_BENCH_PHOTO is not a JPEG")
        }
        let (width, height) = (header.width, header.height)
        let tagged = try profile.embedded(in: plain, format: .jpeg)
        let check = try ImageDecoder.decode(tagged, maximumPixelSize: target)
        precondition(check.colorProfile == profile, "the tagged JPEG did not decode through its profile")
        let size = (width * height >= 1_000_000 ? String(format: "%.0f MP", Double(width * height) / 1e6) : "\(width)x\(height)")
            + (photo == nil ? "" : " photo (\(plain.count / 1024) KB)")
        let baselineName = "the same JPEG without a profile"
        var figures: [Figure] = []

        // Through the pipeline: bytes from memory, no caches, so every request decodes.
        let pipeline = ImagePipeline(configuration: .init(
            dataLoader: MemoryLoader(files: ["/tagged.jpg": tagged, "/plain.jpg": plain]), memoryCache: nil))
        func throughPipeline(_ path: String) -> () async throws -> Double {
            {
                let request = ImageRequest(url: URL(string: "http://bench.invalid\(path)")!, maximumPixelSize: target)
                return try await processCPUTime { _ = try await pipeline.image(for: request) } * 1000
            }
        }
        let piped = [throughPipeline("/tagged.jpg"), throughPipeline("/plain.jpg")]
        for contender in piped { _ = try await contender() }  // warm up: the transform is built once, then cached
        let p = try await Interleaved(repetitions: context.repetitions).run(piped)
        figures.append(
            Figure(
                benchmark: "colour",
                name: "JPEG \(size) with a Display P3 profile, pipeline thumbnail \(target) (converted at the output size): CPU",
                unit: "ms", higherIsBetter: false, ours: p[0], baselineName: baselineName, baseline: p[1],
                repetitions: context.repetitions))

        for targetSize in [target, nil] as [Int?] {
            func measure(_ data: Data) -> () throws -> Double {
                {
                    try threadCPUTime {
                        let decoded = try ImageDecoder.decode(data, maximumPixelSize: targetSize)
                        if let targetSize {
                            _ = try ThumbnailProcessor(maximumPixelSize: targetSize).process(decoded)
                        }
                    } * 1000
                }
            }
            let contenders = [measure(tagged), measure(plain)]
            _ = try contenders.map { try $0() }
            let m = try Interleaved(repetitions: context.repetitions).run(contenders)
            let name =
                targetSize.map { "JPEG \(size) with a Display P3 profile, decode(maximumPixelSize: \($0)) + ThumbnailProcessor (converted at the DCT-scaled size): CPU" }
                ?? "JPEG \(size) with a Display P3 profile, full decode (every pixel converted): CPU"
            figures.append(
                Figure(
                    benchmark: "colour", name: name, unit: "ms", higherIsBetter: false, ours: m[0],
                    baselineName: baselineName, baseline: m[1], repetitions: context.repetitions))
        }
        return figures
    }

    /// CPU seconds (user + system) of the whole process while `body` runs: the pipeline decodes on
    /// its own tasks, so this thread's time would miss the work.
    private static func processCPUTime(_ body: () async throws -> Void) async rethrows -> Double {
        func total() -> Double {
            let usage = resourceUsage(children: false)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let before = total()
        try await body()
        return total() - before
    }
}
