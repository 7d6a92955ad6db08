import Foundation
import Imago

/// Runs `body` with a fresh, empty directory under the system's temporary directory and removes
/// the directory afterwards, whatever happens.
func withTemporaryDirectory<Result>(_ body: (URL) throws -> Result) rethrows -> Result {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// The `async` form of ``withTemporaryDirectory(_:)``.
func withTemporaryDirectory<Result>(_ body: (URL) async throws -> Result) async rethrows -> Result {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// A wall clock for ``DiskCache``'s `now:` that moves only when the test advances it.
final class TestWallClock: Sendable {
    private let date: Locked<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { date = Locked(start) }

    var now: Date { date.withLock { $0 } }

    /// A closure to pass as `now:`.
    var reading: @Sendable () -> Date { { self.now } }

    func advance(by seconds: TimeInterval) { date.withLock { $0 += seconds } }
}

/// Deterministic bytes for a test payload: `count` bytes derived from `seed`.
func sampleBytes(_ count: Int, seed: UInt8 = 1) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7) })
}

/// The names of the files directly inside `directory`.
func fileNames(in directory: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
}
