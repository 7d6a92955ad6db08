import CImagoAllocationCounter
import Foundation
import Imago
import ImagoTestSupport

/// Counts that do not depend on how busy the machine is: heap allocations per memory-cache hit,
/// per `cachedImage(for:)` hit and per disk-cache hit, system calls per disk-cache hit, and the
/// heap allocations a `data(for:)` request adds to a bare loader's (`RequestAllocations`). A
/// regression in a hot path shows here in any CI run, where a ratio would drown in noise.
///
/// Allocations are counted by the interposer of `CImagoAllocationCounter` (every thread, so work a hit
/// hands to another thread counts too); system calls by `strace -f -c` around a child process that
/// makes 200 and then 1,200 disk hits after the same set-up, the difference over 1,000.
enum HotPathCounts {
    /// One measured count, per hit.
    struct Count: Sendable {
        /// The key in `Benchmarks/counts.json`.
        var key: String
        var description: String
        var perHit: Double
        /// What each system call contributed per hit, by name (system-call counts only).
        var breakdown: [(String, Double)] = []
        /// Whether `--record-counts` records it and `--check-counts` holds it to its record;
        /// a count that moves with timing is only printed.
        var isChecked = true
    }

    /// What a count may rise by before the check fails: background allocations or a recency
    /// write that lands inside the loop move an average by hundredths; one more allocation or
    /// system call in the path moves it by 1.
    static let tolerance = 0.2

    static let memoryHits = 20_000
    static let diskEntries = 200
    static let diskHits = 2_000
    static let payloadSize = 50 * 1024

    /// `IMAGO_BENCH_EXTRA_ALLOCATION=memory-hit` adds one heap allocation to every memory-cache hit
    /// the count measures, as a regression in `MemoryCache` would: the test that proves the check
    /// fails uses it.
    static var extraAllocation: String? { ProcessInfo.processInfo.environment["IMAGO_BENCH_EXTRA_ALLOCATION"] }

    /// Measures every count in this process (and, for system calls, two child processes).
    static func measure(directory: URL) async throws -> [Count] {
        guard imago_allocation_counter_installed() else {
            throw CountsError(
                "allocations are not counted in this build (a sanitizer build, or not Linux with glibc): run a plain build")
        }
        var counts = try memoryCounts()
        counts.append(try diskAllocations(directory: directory.appendingPathComponent("counts-disk")))
        counts.append(try diskSystemCalls(directory: directory.appendingPathComponent("counts-syscalls")))
        counts.append(try await RequestAllocations.measure())
        return counts
    }

    // MARK: Allocations

    /// The allocations `body` makes per hit over `hits` hits, after one warm-up pass.
    static func allocations(hits: Int, _ body: () -> Void) -> Double {
        body()
        imago_allocation_counting_begin()
        body()
        return Double(imago_allocation_counting_end()) / Double(hits)
    }

    static func memoryCounts() throws -> [Count] {
        let container = try ImageContainer(bitmap: Bitmap(width: 1, height: 1), format: .jpeg)
        let requests = (0..<1_000).map { ImageRequest(url: URL(string: "https://images.example.com/photos/\($0).jpg")!) }
        let keys = requests.map(\.processedKey)
        let configuration = MemoryCache<CacheKey, ImageContainer>.Configuration(countLimit: 4_000)
        let cache = MemoryCache<CacheKey, ImageContainer>(configuration: configuration)
        let pipelineCache = MemoryCache<CacheKey, ImageContainer>(configuration: configuration)
        let pipeline = ImagePipeline(configuration: .init(memoryCache: pipelineCache, connectivity: .alwaysReachable))
        for key in keys {
            cache.store(container, forKey: key, cost: 4)
            pipelineCache.store(container, forKey: key, cost: 4)
        }
        let extra = extraAllocation == "memory-hit"
        let hits = memoryHits
        let memory = allocations(hits: hits) {
            var found = 0
            for index in 0..<hits {
                if cache.value(forKey: keys[index % keys.count]) != nil { found += 1 }
                if extra { AllocationSink.keep(AllocationSink()) }
            }
            precondition(found == hits, "MemoryCache missed")
        }
        let cached = allocations(hits: hits) {
            var found = 0
            for index in 0..<hits where pipeline.cachedImage(for: requests[index % requests.count]) != nil { found += 1 }
            precondition(found == hits, "cachedImage missed")
        }
        return [
            Count(key: "memory-hit-allocations", description: "heap allocations per MemoryCache.value(forKey:) hit", perHit: memory),
            Count(key: "cached-image-hit-allocations", description: "heap allocations per ImagePipeline.cachedImage(for:) hit", perHit: cached),
        ]
    }

    /// A cache of `diskEntries` 50 KB entries in `directory`, each read once (the first read of an
    /// entry is not what a repeated hit costs).
    static func filledDiskCache(at directory: URL) throws -> (DiskCache, [CacheKey]) {
        try? FileManager.default.removeItem(at: directory)
        let cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 1 << 30))
        var random = SplitMix(seed: 27)
        let payload = Data((0..<payloadSize).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        let keys = (0..<diskEntries).map { CacheKey("https://images.example.com/disk/\($0).jpg") }
        for key in keys { try cache.store(payload, forKey: key) }
        for key in keys { precondition(cache.data(forKey: key)?.count == payloadSize, "DiskCache missed") }
        return (cache, keys)
    }

    static func diskHits(_ count: Int, cache: DiskCache, keys: [CacheKey]) {
        var bytes = 0
        for index in 0..<count { bytes += cache.data(forKey: keys[index % keys.count])?.count ?? 0 }
        precondition(bytes == count * payloadSize, "DiskCache missed")
    }

    static func diskAllocations(directory: URL) throws -> Count {
        let (cache, keys) = try filledDiskCache(at: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let perHit = allocations(hits: diskHits) { diskHits(diskHits, cache: cache, keys: keys) }
        return Count(key: "disk-hit-allocations", description: "heap allocations per DiskCache.data(forKey:) hit, 50 KB", perHit: perHit)
    }

    // MARK: System calls

    /// The flag of the child process that `strace` watches: `--disk-hit-child DIRECTORY HITS`.
    static let childFlag = "--disk-hit-child"

    /// The child: fills a disk cache in `directory`, then makes `hits` hits, and exits.
    static func child(arguments: [String]) throws {
        guard arguments.count >= 2, let hits = Int(arguments[1]), hits >= 0 else {
            throw CountsError("\(childFlag) DIRECTORY HITS")
        }
        let (cache, keys) = try filledDiskCache(at: URL(fileURLWithPath: arguments[0]))
        diskHits(hits, cache: cache, keys: keys)
    }

    static func diskSystemCalls(directory: URL) throws -> Count {
        let installed = ["/usr/bin/strace", "/usr/local/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let strace = installed else {
            throw CountsError("system calls are counted with strace, which is not installed (apt-get install strace)")
        }
        let fewer = try systemCalls(strace: strace, directory: directory, hits: 200)
        let more = try systemCalls(strace: strace, directory: directory, hits: 1_200)
        try? FileManager.default.removeItem(at: directory)
        var breakdown: [(String, Double)] = []
        for (name, calls) in more {
            let perHit = Double(calls - (fewer[name] ?? 0)) / 1_000
            if abs(perHit) >= 0.005 { breakdown.append((name, perHit)) }
        }
        breakdown.sort { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
        let total = Double(more.values.reduce(0, +) - fewer.values.reduce(0, +)) / 1_000
        return Count(
            key: "disk-hit-syscalls", description: "system calls per DiskCache.data(forKey:) hit, 50 KB", perHit: total,
            breakdown: breakdown)
    }

    /// The system calls of a child making `hits` disk hits, by name, from `strace -f -c`.
    static func systemCalls(strace: String, directory: URL, hits: Int) throws -> [String: Int] {
        // Each child starts from no cache folder, so the two set-ups are the same and cancel out.
        try? FileManager.default.removeItem(at: directory)
        let summary = directory.deletingLastPathComponent().appendingPathComponent("strace-\(hits).txt")
        defer { try? FileManager.default.removeItem(at: summary) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: strace)
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        process.arguments = ["-f", "-c", "-o", summary.path, "--", executable, childFlag, directory.path, String(hits)]
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CountsError(
                "strace of the disk-hit child failed (status \(process.terminationStatus)): \(String(decoding: message.suffix(1_000), as: UTF8.self))")
        }
        return try parseSummary(String(contentsOf: summary, encoding: .utf8))
    }

    /// The calls column of `strace -c`'s table, by system call: rows of `% time, seconds,
    /// usecs/call, calls, [errors,] syscall`; the header, rules and the total row are skipped.
    static func parseSummary(_ text: String) throws -> [String: Int] {
        var calls: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 5, let name = fields.last, name != "total", Double(fields[0]) != nil,
                let count = Int(fields[3])
            else { continue }
            calls[String(name), default: 0] += count
        }
        guard !calls.isEmpty else { throw CountsError("strace printed no summary: \(text.prefix(500))") }
        return calls
    }
}

/// Where `IMAGO_BENCH_EXTRA_ALLOCATION` puts the object it allocates: a stored reference the
/// optimiser cannot remove or promote to the stack.
final class AllocationSink: @unchecked Sendable {
    nonisolated(unsafe) private static var kept: AllocationSink?

    @inline(never) static func keep(_ sink: AllocationSink) { kept = sink }
}

/// A count that could not be measured, with what to do about it.
struct CountsError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
