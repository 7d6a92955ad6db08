#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

/// `imago-bench --check-counts` (what `.ci/run bench` runs against `Benchmarks/counts.json`) fails
/// when a hot path makes one more heap allocation per hit, and only then: counts recorded by the
/// built `imago-bench` are checked again as they are (they hold) and with one allocation added to
/// each memory-cache hit (`IMAGO_BENCH_EXTRA_ALLOCATION=memory-hit`: the check fails, naming that
/// count alone). The counts come from the real interposer and a real `strace`, so the recorded
/// disk hit shows the allocation of its payload and the system calls of its read.
@Suite struct CountsCheckTests {
    static let strace = ExternalPrograms.find("strace")
    /// Sanitizer builds count nothing (their runtimes own malloc): the plain test stage runs this.
    static var runs: Bool { ExternalPrograms.runs(strace) }

    @Test(.enabled(if: runs)) func theCheckFailsWhenAMemoryHitAllocatesMore() async throws {
        try #require(Self.strace != nil, "install Debian's strace (the system-call counts)")
        let bench = try #require(
            BuiltExecutable.url(named: "imago-bench"), "imago-bench was not found beside the test bundle: run `swift build` first")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-counts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = folder.appendingPathComponent("counts.json")

        let recorded = try await CommandRunner.run(bench, arguments: ["--record-counts", record.path], timeLimit: .seconds(300))
        try #require(recorded.status == 0, "\(recorded.output)\n\(recorded.errorOutput)")
        let sections = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: record)) as? [String: [String: Double]])
        let counts = try #require(sections.values.first, "\(sections)")
        #expect(sections.count == 1)
        #expect(Set(counts.keys) == ["memory-hit-allocations", "cached-image-hit-allocations", "disk-hit-allocations", "disk-hit-syscalls"])
        // A disk hit returns its 50 KB payload in memory of its own, read from a file it opened.
        #expect((counts["disk-hit-allocations"] ?? 0) >= 1, "\(counts)")
        #expect((counts["disk-hit-syscalls"] ?? 0) >= 2, "\(counts)")

        let holds = try await CommandRunner.run(bench, arguments: ["--check-counts", record.path], timeLimit: .seconds(300))
        #expect(holds.status == 0, "measured again, the counts hold: \(holds.output)\n\(holds.errorOutput)")

        var environment = ProcessInfo.processInfo.environment
        environment["IMAGO_BENCH_EXTRA_ALLOCATION"] = "memory-hit"
        let rose = try await CommandRunner.run(
            bench, arguments: ["--check-counts", record.path], environment: environment, timeLimit: .seconds(300))
        #expect(rose.status == 1, "\(rose.output)\n\(rose.errorOutput)")
        #expect(rose.errorOutput.contains("memory-hit-allocations"), "\(rose.errorOutput)")
        #expect(!rose.errorOutput.contains("cached-image-hit-allocations"), "\(rose.errorOutput)")
        #expect(!rose.errorOutput.contains("disk-hit"), "\(rose.errorOutput)")

        // A file with nothing recorded for this build checks nothing, and says so: it fails.
        let other = folder.appendingPathComponent("other.json")
        try Data(#"{"another-build": {"memory-hit-allocations": 0}}"#.utf8).write(to: other)
        let empty = try await CommandRunner.run(bench, arguments: ["--check-counts", other.path], timeLimit: .seconds(300))
        #expect(empty.status == 1, "\(empty.output)\n\(empty.errorOutput)")
        #expect(empty.errorOutput.contains("no counts are recorded"), "\(empty.errorOutput)")
    }
}
#endif
