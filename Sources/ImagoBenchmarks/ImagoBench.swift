import Foundation

/// `swift run -c release imago-bench [--filter PATTERN] [--json] [--quick] [--repetitions N]`
///
/// Every figure is measured beside its baseline in the same run, interleaved, and reported as the
/// median of N repetitions with the ratio ours / baseline. See Benchmarks/README.md.
@main
struct ImagoBench {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains("--page-faults") { try PageFaultProbe.run(); return }
        if let index = arguments.firstIndex(of: OverheadProbe.flag) {
            do {
                try await OverheadProbe.run(arguments: Array(arguments[(index + 1)...]))
            } catch let error as CountsError {  // a usage error: said plainly, no backtrace
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                exit(2)
            }
            return
        }
        if let index = arguments.firstIndex(of: "--thumbnail-child"), arguments.count >= index + 3 {
            try ThumbnailBenchmark.child(path: arguments[index + 1], target: Int(arguments[index + 2]) ?? 256)
            return
        }
        if let index = arguments.firstIndex(of: HotPathCounts.childFlag) {
            try HotPathCounts.child(arguments: Array(arguments[(index + 1)...]))
            return
        }
        if let index = arguments.firstIndex(of: PeakMemoryBenchmark.childFlag) {
            try await PeakMemoryBenchmark.child(arguments: Array(arguments[(index + 1)...]))
            return
        }
        let options: BenchmarkOptions
        do {
            options = try BenchmarkOptions(arguments: arguments)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(2)
        }

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let machine = Machine.current(temporaryDirectory: directory)
        let python = PythonWorker(scriptDirectory: directory)
        defer { python?.stop() }
        if options.countsOnly {
            exit(await countsOnly(options: options, directory: directory))
        }
        let started = ContinuousClock.now
        let context = BenchmarkContext(options: options, directory: directory, python: python, started: started)
        if options.quick { context.note("quick smoke mode: tiny inputs, 1 repetition; the numbers mean nothing") }
        if python?.hasPillow != true {
            context.note("Pillow unavailable (set IMAGO_BENCH_PYTHON to a venv with pillow): its baselines are left out")
        }

        var figures: [Figure] = []
        var ran = 0
        for group in BenchmarkGroup.all where options.runs(group: group.name) {
            context.note(group.name + ": " + group.summary)
            ran += 1
            do {
                figures += try await group.run(context).filter(options.keeps)
            } catch let skip as BenchmarkSkip {
                context.note("skipped: \(skip.message)")
            }
        }
        guard ran > 0 else {
            FileHandle.standardError.write(Data("no group matches \(options.filter ?? "")\n\(BenchmarkOptions.usage)\n".utf8))
            exit(2)
        }
        context.note("done")

        var report = Report(
            machine: machine, repetitions: options.repetitions, python: python?.versionsLine ?? "python3 unavailable",
            figures: figures, seconds: (ContinuousClock.now - started).seconds)
        report.quick = options.quick
        report.loadAverageAtEnd = Machine.loadAverage()
        print(options.json ? report.json() : report.table())
        // A whole run also prints the counts (not in JSON, which holds the figures alone).
        if options.filter == nil, !options.json {
            do {
                let counts = try await HotPathCounts.measure(directory: directory)
                let record = (try? CountsRecord(contentsOf: URL(fileURLWithPath: "Benchmarks/counts.json"))) ?? CountsRecord()
                print("\n" + record.table(counts))
            } catch {
                print("\ncounts not measured: \(error)")
            }
        }
    }

    /// `--counts`: measures the counts, prints them, records or checks them; the exit status.
    static func countsOnly(options: BenchmarkOptions, directory: URL) async -> Int32 {
        do {
            let counts = try await HotPathCounts.measure(directory: directory)
            let file = (options.checkCounts ?? options.recordCounts).map { URL(fileURLWithPath: $0) }
            let record = try file.map(CountsRecord.init(contentsOf:)) ?? CountsRecord()
            print(record.table(counts))
            if let path = options.checkCounts {
                let regressions = record.regressions(in: counts)
                guard regressions.isEmpty else {
                    FileHandle.standardError.write(
                        Data(("imago-bench: counts above those recorded in \(path):\n" + regressions.map { "  " + $0 }.joined(separator: "\n") + "\n").utf8))
                    return 1
                }
                print("every count is at or below its value in \(path)")
            }
            if let path = options.recordCounts {
                var target = try CountsRecord(contentsOf: URL(fileURLWithPath: path))
                target.record(counts)
                try target.write(to: URL(fileURLWithPath: path))
                print("recorded the \(CountsRecord.configuration) counts in \(path)")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("imago-bench: \(error)\n".utf8))
            return 2
        }
    }
}

/// What every group is handed: the options, a scratch directory, the python worker, and a log.
struct BenchmarkContext: Sendable {
    var options: BenchmarkOptions
    var directory: URL
    nonisolated(unsafe) var python: PythonWorker?
    var started: ContinuousClock.Instant

    var repetitions: Int { options.repetitions }
    var quick: Bool { options.quick }

    /// A progress line on stderr, with the seconds since the run began.
    func note(_ text: String) {
        FileHandle.standardError.write(
            Data("[\(String(format: "%6.1f", (ContinuousClock.now - started).seconds)) s] \(text)\n".utf8))
    }
}

/// A group that cannot run here (a missing tool or module): noted on stderr, never faked.
struct BenchmarkSkip: Error {
    var message: String
}

/// One named group of figures; `--filter` picks groups by name.
struct BenchmarkGroup: Sendable {
    var name: String
    var summary: String
    var run: @Sendable (BenchmarkContext) async throws -> [Figure]

    static let all: [BenchmarkGroup] = [
        BenchmarkGroup(name: "memory-cache", summary: "memory cache hits") { context in
            try MemoryCacheBenchmark.run(repetitions: context.repetitions, quick: context.quick)
        },
        BenchmarkGroup(name: "disk-cache", summary: "disk cache reads and writes") { context in
            try DiskCacheBenchmark.run(
                repetitions: context.repetitions, directory: context.directory, python: context.python, quick: context.quick)
        },
        BenchmarkGroup(name: "cache-startup", summary: "opening a disk cache of 100k entries, its first hit, and a sweep") {
            context in
            try CacheStartupBenchmark.run(repetitions: context.repetitions, directory: context.directory, quick: context.quick)
        },
        BenchmarkGroup(name: "jpeg-decode", summary: "12 MP JPEG decode beside djpeg and Pillow") { context in
            try CodecBenchmark.decode(context)
        },
        BenchmarkGroup(name: "thumbnail-processor", summary: "Lanczos shrink beside Pillow") { context in
            try CodecBenchmark.thumbnail(context)
        },
        BenchmarkGroup(name: "linear-light", summary: "12 MP resize to 256 in linear light beside the stored values") { context in
            try LinearLightBenchmark.run(context)
        },
        BenchmarkGroup(name: "colour-profile", summary: "a 12 MP JPEG with a colour profile beside the same without one") {
            context in
            try await ColorProfileBenchmark.run(context)
        },
        BenchmarkGroup(name: "gain-map", summary: "a 12 MP gain-map JPEG to a 256 thumbnail (and back to JPEG) beside the same JPEG without the map") {
            context in
            try await GainMapBenchmark.run(context)
        },
        BenchmarkGroup(name: "jxl-decode", summary: "12 MP lossy JPEG XL decode beside djxl, single-threaded, CPU") { context in
            try JXLDecodeBenchmark.run(context)
        },
        BenchmarkGroup(name: "thumbnails", summary: "thumbnails of whole files beside libvips and Pillow, child processes") {
            context in
            try ThumbnailBenchmark.run(context)
        },
        BenchmarkGroup(name: "network", summary: "loopback downloads beside the bare loader") { context in
            try await NetworkBenchmark.run(context)
        },
        BenchmarkGroup(name: "previews", summary: "time to the first preview of a 12 MP progressive JPEG at 1 MB/s") {
            context in
            try await PreviewBenchmark.run(context)
        },
        BenchmarkGroup(name: "progressive-thumbnail", summary: "12 MP progressive JPEG to 256 px from the scans 1/8 reads, beside the whole file") {
            context in
            try ProgressiveThumbnailBenchmark.run(context)
        },
        BenchmarkGroup(name: "coalescing", summary: "many callers of few URLs: one download and one decode each") {
            context in
            try await CoalescingBenchmark.run(context)
        },
        BenchmarkGroup(name: "peak-memory", summary: "peak resident memory of thumbnails of many 12 MP JPEGs, child process") {
            context in
            try await PeakMemoryBenchmark.run(context)
        },
        BenchmarkGroup(name: "scheduler", summary: "download queue operations at 1k and 100k waiting") { context in
            try await SchedulerBenchmark.run(context)
        },
    ]
}
