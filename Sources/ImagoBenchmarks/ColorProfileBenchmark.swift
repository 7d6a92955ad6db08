import Foundation
import Imago
import ImagoTestSupport

/// What colour management costs: a 12-megapixel JPEG carrying a Display P3 profile, thumbnailed to
/// 256 pixels (DCT-scaled decode, conversion to sRGB at the decoded size, Lanczos), against the
/// same file without the profile; and the same at full size, where the conversion runs on every
/// pixel. CPU time on this thread, interleaved, medians.
enum ColorProfileBenchmark {
    static let target = 256

    /// The Display P3 profile of the colour fixtures (built by Little CMS from P3's primaries),
    /// read from the repository: the benchmark runs from its root.
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/ImagoTests/Fixtures/colour/displayp3.jpg").standardizedFileURL

    static func run(_ context: BenchmarkContext) throws -> [Figure] {
        guard let source = try? Data(contentsOf: fixture), let profile = ImageHeader.details(source)?.colorProfile else {
            throw BenchmarkSkip(message: "colour-profile: no Display P3 fixture at \(fixture.path)")
        }
        let (width, height) = context.quick ? (400, 300) : (CodecBenchmark.width, CodecBenchmark.height)
        let plain = try Fixtures.jpeg(width: width, height: height)
        let tagged = try profile.embedded(in: plain, format: .jpeg)
        let check = try ImageDecoder.decode(tagged, targetPixelSize: target)
        precondition(check.colorProfile == profile, "the tagged JPEG did not decode through its profile")

        var figures: [Figure] = []
        for targetSize in [target, nil] as [Int?] {
            func measure(_ data: Data) -> () throws -> Double {
                {
                    try threadCPUTime {
                        let decoded = try ImageDecoder.decode(data, targetPixelSize: targetSize)
                        if let targetSize {
                            _ = try ThumbnailProcessor(maximumPixelSize: targetSize).process(decoded)
                        }
                    } * 1000
                }
            }
            let contenders = [measure(tagged), measure(plain)]
            _ = try contenders.map { try $0() }  // warm up: the transform is built once, then cached
            let m = try Interleaved(repetitions: context.repetitions).run(contenders)
            let size = width * height >= 1_000_000 ? String(format: "%.0f MP", Double(width * height) / 1e6) : "\(width)x\(height)"
            let name =
                targetSize.map { "JPEG \(size) with a Display P3 profile → \($0) thumbnail (converted at the DCT-scaled size): CPU" }
                ?? "JPEG \(size) with a Display P3 profile, full decode (every pixel converted): CPU"
            figures.append(
                Figure(
                    benchmark: "colour", name: name, unit: "ms", higherIsBetter: false, ours: m[0],
                    baselineName: "the same JPEG without a profile", baseline: m[1], repetitions: context.repetitions))
        }
        return figures
    }
}
