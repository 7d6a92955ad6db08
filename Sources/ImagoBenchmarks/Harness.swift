import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `getrusage` for this process (`children: false`) or its waited-for children: Glibc names the
/// selector with its own enum type, Darwin with a plain `Int32`.
func resourceUsage(children: Bool) -> rusage {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
    #endif
    return usage
}

/// One row of the results: our figure beside its baseline, both medians of the same interleaved runs.
struct Figure: Sendable {
    var benchmark: String
    var name: String
    /// "ns/hit", "ops/s", "ms", "req/s".
    var unit: String
    /// Whether a larger number is better (throughput) or worse (time).
    var higherIsBetter: Bool
    var ours: Double
    var baselineName: String
    var baseline: Double
    /// Further comparisons measured in the same run (name, median).
    var extra: [(String, Double)] = []
    var repetitions: Int

    /// ours / baseline, as DESIGN asks; read it with `higherIsBetter` in mind.
    var ratio: Double { ours / baseline }
}

/// Medians over interleaved repetitions: each repetition runs every contender once, in an order that
/// rotates, so drift in the machine's state spreads evenly.
struct Interleaved {
    var repetitions: Int

    func run(_ contenders: [() throws -> Double]) throws -> [Double] {
        var samples = Array(repeating: [Double](), count: contenders.count)
        for rep in 0..<repetitions {
            for offset in 0..<contenders.count {
                let index = (rep + offset) % contenders.count
                samples[index].append(try contenders[index]())
            }
        }
        return samples.map(median)
    }

    func run(_ contenders: [() async throws -> Double]) async throws -> [Double] {
        var samples = Array(repeating: [Double](), count: contenders.count)
        for rep in 0..<repetitions {
            for offset in 0..<contenders.count {
                let index = (rep + offset) % contenders.count
                samples[index].append(try await contenders[index]())
            }
        }
        return samples.map(median)
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

/// Seconds taken by `body`.
func time(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return (ContinuousClock.now - start).seconds
}

func time(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return (ContinuousClock.now - start).seconds
}

/// CPU seconds the calling thread spent in `body` (`CLOCK_THREAD_CPUTIME_ID`): what a
/// single-threaded piece of work costs, whatever else the machine runs meanwhile.
func threadCPUTime(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }
    let start = now()
    try body()
    return now() - start
}

/// Keeps the optimizer from discarding a result.
@inline(never) func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// What the numbers were measured on.
struct Machine: Sendable {
    var cores: Int
    var kernel: String
    var cpu: String
    var loadAverage: String
    var date: String
    var temporaryFileSystem: String

    static func current(temporaryDirectory: URL) -> Machine {
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let cpu = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            ?? "unknown"
        let load = loadAverage()
        let formatter = ISO8601DateFormatter()
        return Machine(
            cores: ProcessInfo.processInfo.activeProcessorCount, kernel: kernel, cpu: cpu, loadAverage: load,
            date: formatter.string(from: Date()), temporaryFileSystem: fileSystem(of: temporaryDirectory.path))
    }

    /// The 1, 5 and 15-minute load averages, from /proc/loadavg.
    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "")
            .split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// The type of the file system holding `path`, from /proc/mounts (longest matching mount point).
    static func fileSystem(of path: String) -> String {
        let mounts = ((try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? "").split(separator: "\n")
        var best = ("", "unknown")
        for line in mounts {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let point = String(fields[1])
            let covers = path == point || path.hasPrefix(point == "/" ? "/" : point + "/")
            if covers, point.count >= best.0.count { best = (point, String(fields[2])) }
        }
        return "\(best.1) at \(best.0)"
    }
}

/// CPU seconds (user + system) of this process, every thread, or of its waited-for children.
func cpuSeconds(children: Bool) -> Double {
    let usage = resourceUsage(children: children)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// CPU seconds of the whole process while `body` runs: work the pipeline or a library hands to
/// other threads counts too.
func processCPUTime(_ body: () async throws -> Void) async rethrows -> Double {
    let before = cpuSeconds(children: false)
    try await body()
    return cpuSeconds(children: false) - before
}

/// CPU seconds of the whole process while `body` runs (synchronous work).
func processCPUTime(_ body: () throws -> Void) rethrows -> Double {
    let before = cpuSeconds(children: false)
    try body()
    return cpuSeconds(children: false) - before
}

/// CPU seconds of the child processes `body` runs and waits for.
func childrenCPUTime(_ body: () throws -> Void) rethrows -> Double {
    let before = cpuSeconds(children: true)
    try body()
    return cpuSeconds(children: true) - before
}

/// Runs a tool (djpeg, djxl…) to its end with its output discarded; throws when it fails.
func runTool(_ executable: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw PythonWorker.WorkerError(message: "\(executable) exited with \(process.terminationStatus)")
    }
}
