import Foundation
import Imago
import ImagoTestSupport

extension ThumbnailBenchmark {
    /// The group's entry point. The full run needs pyvips (`IMAGO_BENCH_PYTHON`) and is skipped
    /// with a note without it. `--quick` without a venv runs only our own child process once, so
    /// that the child path cannot rot, and says that the libvips and Pillow baselines were skipped.
    static func run(_ context: BenchmarkContext) throws -> [Figure] {
        let python = ProcessInfo.processInfo.environment["IMAGO_BENCH_PYTHON"] ?? "/usr/bin/python3"
        let hasVips = (try? spawn(python, ["-c", "import pyvips, PIL; print('ok')"]))?.output.hasPrefix("ok") ?? false
        if hasVips {
            return try run(repetitions: context.repetitions, directory: context.directory, quick: context.quick)
        }
        guard context.quick else {
            throw BenchmarkSkip(message: "pyvips and Pillow cannot be imported by \(python) (set IMAGO_BENCH_PYTHON to a venv with pyvips, pyvips-binary and pillow)")
        }
        context.note("quick: pyvips/Pillow unavailable (no IMAGO_BENCH_PYTHON venv): libvips and Pillow baselines skipped, Imago's child run alone")
        let path = context.directory.appendingPathComponent("thumbnail-quick.jpg")
        try Fixtures.jpeg(width: 800, height: 600).write(to: path)
        let result = try spawn(CommandLine.arguments[0], ["--thumbnail-child", path.path, "\(target)"])
        let fields = result.output.split(separator: " ")
        guard let cpu = fields.first.flatMap({ Double($0) }) else {
            throw BenchmarkError(message: "the thumbnail child printed \(result.output)")
        }
        return [
            Figure(
                benchmark: "thumbnail-process", name: "JPEG 0.5 MP (800x600) → \(target): CPU", unit: "ms",
                higherIsBetter: false, ours: cpu * 1000, baselineName: "libvips and Pillow skipped: no pyvips venv",
                baseline: .nan, repetitions: 1)
        ]
    }
}
