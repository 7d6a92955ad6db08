import Foundation

/// `swift run -c release imago-bench [--json] [--repetitions N]`
///
/// Every figure is measured beside its baseline in the same run, interleaved, and reported as the
/// median of N repetitions with the ratio ours / baseline. See Benchmarks/README.md.
@main
struct ImagoBench {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.contains("--page-faults") { try PageFaultProbe.run(); return }
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
        note("memory cache")
        figures += try MemoryCacheBenchmark.run(repetitions: repetitions)
        note("disk cache")
        figures += try DiskCacheBenchmark.run(repetitions: repetitions, directory: directory, python: python)
        note("JPEG decode")
        figures += try CodecBenchmark.decode(repetitions: repetitions, directory: directory, python: python)
        note("thumbnail")
        figures += try CodecBenchmark.thumbnail(repetitions: repetitions, directory: directory, python: python)
        note("network")
        figures += try await NetworkBenchmark.run(repetitions: repetitions)
        note("done")

        let report = Report(
            machine: machine, repetitions: repetitions, python: python?.versionsLine ?? "python3 unavailable",
            figures: figures, seconds: (ContinuousClock.now - started).seconds)
        print(json ? report.json() : report.table())
    }
}
