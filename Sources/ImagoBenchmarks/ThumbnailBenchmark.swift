import Foundation
import Imago
import ImagoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Thumbnails to 256 pixels of whole files, Imago beside libvips (pyvips) and Pillow, each
/// measured as a separate child process per repetition.
///
/// A fresh process per measurement is the only way to read each tool's peak memory honestly:
/// `ru_maxrss` never goes down, so in one long-lived process the largest image would set every
/// later figure, and `RUSAGE_CHILDREN` reports the maximum over all children. Each child is
/// spawned and reports its own peak resident memory, `VmHWM` from `/proc/self/status` (the whole
/// process: runtime or interpreter included, as a user of the tool pays it). Not `wait4`'s
/// `ru_maxrss`: Linux carries the parent's high-water mark across `execve` into the child's, so
/// every child would report at least this benchmark's own peak. CPU is the child's own `getrusage(RUSAGE_SELF)` (user + system, every thread) taken just
/// around the thumbnail (read file, decode, shrink, pixels in memory), so interpreter start-up and
/// imports do not count. Python comes from `IMAGO_BENCH_PYTHON` (a venv with pyvips,
/// pyvips-binary and pillow; see Benchmarks/README.md), else `python3`.
enum ThumbnailBenchmark {
    static let target = 256

    static let script = #"""
    import sys, os, resource
    def peak():  # this process's own high-water mark of resident memory, in kB
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0
    def cpu():
        u = resource.getrusage(resource.RUSAGE_SELF)
        return u.ru_utime + u.ru_stime
    tool, path, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if tool == "make":  # make <dir> <jpeg 12 MP>: the other inputs, written by libvips
        import pyvips
        d = path; src = pyvips.Image.new_from_file(sys.argv[4])
        big = src.resize(2.0)
        big.pngsave(os.path.join(d, "48mp.png"), compression=6, interlace=False)
        src.webpsave(os.path.join(d, "12mp.webp"), Q=80)
        huge = src.resize(5.0, vscale=20000 / src.height)
        huge.jpegsave(os.path.join(d, "20000x20000.jpg"), Q=80)
        print("ok", flush=True); sys.exit(0)
    if tool == "vips":
        import pyvips
        pyvips.cache_set_max(0)
        t = cpu()
        im = pyvips.Image.thumbnail(path, target)
        pixels = im.write_to_memory()
        print(cpu() - t, im.width, im.height, peak(), flush=True)
    elif tool == "pillow":
        from PIL import Image
        Image.MAX_IMAGE_PIXELS = None
        t = cpu()
        im = Image.open(path)
        im.thumbnail((target, target), Image.LANCZOS)
        im.load()
        print(cpu() - t, im.size[0], im.size[1], peak(), flush=True)
    """#

    /// `imago-bench --thumbnail-child PATH TARGET`: one thumbnail in this process; prints the CPU
    /// seconds it took and the size.
    static func child(path: String, target: Int) throws {
        func cpu() -> Double {
            let usage = resourceUsage(children: false)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let start = cpu()
        var limits = DecodingLimits()
        limits.maximumEncodedSize = 1 << 30  // the 48 MP PNG may be larger than the 50 MiB default
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        let decoded = try ImageDecoder.decode(data, limits: limits, maximumPixelSize: target)
        let thumbnail = try ThumbnailProcessor(maximumPixelSize: target).process(decoded)
        let size = thumbnail.pixelSize
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
            .flatMap { $0.split(separator: " ").dropFirst().first }.map(String.init) ?? "0"
        print(cpu() - start, size.width, size.height, peak)
    }

    struct Sample {
        var cpu: Double
        var peakMegabytes: Double
    }

    /// - Parameter quick: the smoke mode: one small JPEG, no inputs made by libvips.
    static func run(repetitions: Int, directory: URL, quick: Bool = false) throws -> [Figure] {
        let python = ProcessInfo.processInfo.environment["IMAGO_BENCH_PYTHON"] ?? "/usr/bin/python3"
        let scriptPath = directory.appendingPathComponent("imago_thumbnail_child.py").path
        try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let jpegPath = directory.appendingPathComponent("12mp.jpg").path
        try Fixtures.jpeg(width: quick ? 800 : 4000, height: quick ? 600 : 3000).write(to: URL(fileURLWithPath: jpegPath))
        if !quick {
            let made = try spawn(python, [scriptPath, "make", directory.path, "0", jpegPath])
            guard made.output.hasPrefix("ok") else {
                throw BenchmarkError(message: "pyvips could not make the inputs (set IMAGO_BENCH_PYTHON to a venv with pyvips): \(made.output)")
            }
        }
        let me = CommandLine.arguments[0]
        let inputs: [(String, String)] =
            quick
            ? [("JPEG 0.5 MP (800x600)", "12mp.jpg")]
            : [
                ("JPEG 12 MP (4000x3000)", "12mp.jpg"), ("PNG 48 MP (8000x6000, non-interlaced)", "48mp.png"),
                ("WebP 12 MP lossy (4000x3000)", "12mp.webp"), ("JPEG 20000x20000", "20000x20000.jpg"),
            ]
        var figures: [Figure] = []
        for (label, file) in inputs {
            let path = directory.appendingPathComponent(file).path
            let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            let tools: [(String, [String])] = [
                ("imago", [me, "--thumbnail-child", path, "\(target)"]),
                ("vips", [python, scriptPath, "vips", path, "\(target)"]),
                ("pillow", [python, scriptPath, "pillow", path, "\(target)"]),
            ]
            var samples: [[Sample]] = Array(repeating: [], count: tools.count)
            for repetition in 0..<(repetitions + 1) {  // the first round warms the page cache
                for offset in 0..<tools.count {
                    let index = (offset + repetition) % tools.count
                    let (executable, arguments) = (tools[index].1[0], Array(tools[index].1.dropFirst()))
                    let result = try spawn(executable, arguments)
                    guard let cpu = Double(result.output.split(separator: " ").first ?? "") else {
                        if repetition == 0 {
                            FileHandle.standardError.write(Data("\(tools[index].0) on \(file): \(result.output)\n".utf8))
                        }
                        continue
                    }
                    let fields = result.output.split(separator: " ")
                    let peak = fields.count > 3 ? (Double(fields[3].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) / 1024 : 0
                    if repetition > 0 { samples[index].append(Sample(cpu: cpu, peakMegabytes: peak)) }
                }
            }
            let cpu = samples.map { median($0.map(\.cpu)) * 1000 }
            let memory = samples.map { median($0.map(\.peakMegabytes)) }
            let mb = String(format: "%.1f MB", Double(bytes) / 1_048_576)
            var figure = Figure(
                benchmark: "thumbnail-process", name: "\(label), \(mb), → \(target): CPU", unit: "ms",
                higherIsBetter: false, ours: cpu[0], baselineName: "libvips \(vipsVersion(python, scriptPath)) thumbnail()",
                baseline: cpu[1], repetitions: repetitions)
            figure.extra = [("Pillow thumbnail()", cpu[2]), ("ratio to Pillow", cpu[0] / cpu[2])]
            figures.append(figure)
            var peak = Figure(
                benchmark: "thumbnail-process", name: "\(label) → \(target): peak RSS of the process", unit: "MB",
                higherIsBetter: false, ours: memory[0], baselineName: "libvips (python + pyvips process)",
                baseline: memory[1], repetitions: repetitions)
            peak.extra = [("Pillow (python process)", memory[2]), ("ratio to Pillow", memory[0] / memory[2])]
            figures.append(peak)
        }
        return figures
    }

    private static func vipsVersion(_ python: String, _ scriptPath: String) -> String {
        (try? spawn(python, ["-c", "import pyvips; print('%d.%d.%d' % tuple(pyvips.version(i) for i in range(3)))"]))?
            .output.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }

    struct BenchmarkError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Runs `executable` with `arguments` to completion; its standard output and its own peak
    /// resident memory (`wait4`'s `ru_maxrss`, in MB).
    static func spawn(_ executable: String, _ arguments: [String]) throws -> (output: String, peakMegabytes: Double) {
        let pipe = Pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe.fileHandleForWriting.fileDescriptor, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, executable, &actions, nil, argv, environ)
        try? pipe.fileHandleForWriting.close()
        guard status == 0 else { throw BenchmarkError(message: "could not start \(executable): \(status)") }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        var usage = rusage()
        var exit: Int32 = 0
        _ = wait4(pid, &exit, 0, &usage)
        return (output, Double(usage.ru_maxrss) / 1024)
    }
}
