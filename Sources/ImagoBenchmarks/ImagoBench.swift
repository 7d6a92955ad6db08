import Foundation

/// `swift run -c release imago-bench [--json] [--repetitions N] [--only thumbnails]`
///
/// Every figure is measured beside its baseline in the same run, interleaved, and reported as the
/// median of N repetitions with the ratio ours / baseline. See Benchmarks/README.md.
@main
struct ImagoBench {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.contains("--page-faults") { try PageFaultProbe.run(); return }
        if let index = arguments.firstIndex(of: "--thumbnail-child"), arguments.count >= 3 {
            let rest = Array(arguments[index...].dropFirst())
            try ThumbnailBenchmark.child(path: rest[0], target: Int(rest[1]) ?? 256)
            return
        }
        // `--only thumbnails`: just the whole-process thumbnail comparison with libvips and Pillow.
        let only = arguments.firstIndex(of: "--only").flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil }
        let json = arguments.contains("--json")
        var repetitions = 7
        if let index = arguments.firstIndex(of: "--repetitions"), arguments.index(after: index) < arguments.endIndex,
            let value = Int(arguments[arguments.index(after: index)])
        {
            repetitions = max(5, value)
        }

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let machine = Machine.current(temporaryDirectory: directory)
        let python = PythonWorker(scriptDirectory: directory)
        defer { python?.stop() }
        let started = ContinuousClock.now
        func note(_ text: String) {
            FileHandle.standardError.write(Data("[\(String(format: "%6.1f", (ContinuousClock.now - started).seconds)) s] \(text)\n".utf8))
        }

        var figures: [Figure] = []
        if only == "cache" {
            // `--only cache`: the memory and disk cache figures and the start-up of a large disk cache.
            let smoke = arguments.contains("--quick")
            note("memory cache")
            figures += try MemoryCacheBenchmark.run(repetitions: repetitions, quick: smoke)
            note("disk cache")
            figures += try DiskCacheBenchmark.run(repetitions: repetitions, directory: directory, python: python, quick: smoke)
            note("disk cache start-up")
            figures += try CacheStartupBenchmark.run(repetitions: repetitions, directory: directory, quick: smoke)
            print(Report(
                machine: machine, repetitions: repetitions, python: python?.versionsLine ?? "python3 unavailable",
                figures: figures, seconds: (ContinuousClock.now - started).seconds).table())
            return
        }
        if only == "thumbnails" {
            note("thumbnails of whole files, Imago, libvips and Pillow in child processes")
            figures += try ThumbnailBenchmark.run(repetitions: repetitions, directory: directory)
            let report = Report(
                machine: machine, repetitions: repetitions, python: python?.versionsLine ?? "python3 unavailable",
                figures: figures, seconds: (ContinuousClock.now - started).seconds)
            print(json ? report.json() : report.table())
            return
        }
        note("memory cache")
        figures += try MemoryCacheBenchmark.run(repetitions: repetitions)
        note("disk cache")
        figures += try DiskCacheBenchmark.run(repetitions: repetitions, directory: directory, python: python)
        note("JPEG decode")
        figures += try CodecBenchmark.decode(repetitions: repetitions, directory: directory, python: python)
        note("thumbnail")
        figures += try CodecBenchmark.thumbnail(repetitions: repetitions, directory: directory, python: python)
        note("thumbnails of whole files beside libvips and Pillow")
        do {
            figures += try ThumbnailBenchmark.run(repetitions: repetitions, directory: directory)
        } catch {
            note("skipped: \(error)")
        }
        note("network")
        figures += try await NetworkBenchmark.run(repetitions: repetitions)
        note("done")

        let report = Report(
            machine: machine, repetitions: repetitions, python: python?.versionsLine ?? "python3 unavailable",
            figures: figures, seconds: (ContinuousClock.now - started).seconds)
        print(json ? report.json() : report.table())
    }
}
