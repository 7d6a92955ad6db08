import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Two `imago-cache-stress` processes store, read, remove and sweep in one cache directory and are
/// killed with SIGKILL at random moments; after each round the cache is reopened here and every
/// key is read back. A read may miss (the entry was never written, or was evicted, or its write was
/// cut short), but never returns bytes other than what was stored under the key.
///
/// 100 rounds by default, which the whole suite runs beside (RELIABILITY.md, "Crash safety of the
/// disk cache"); `IMAGO_CRASH_ROUNDS=1000` for more.
@Suite("Crash safety: killed writers never corrupt a read", .serialized)
struct CrashSafetyTests {
    static let keyCount = 48

    struct Figures: CustomStringConvertible {
        var rounds = 0
        var kills = 0
        var readsChecked = 0
        var hits = 0
        var failures: [String] = []
        var seconds = 0.0

        var description: String {
            "\(rounds) rounds, \(kills) kills, \(readsChecked) reads checked (\(hits) hits), "
                + "\(String(format: "%.1f", seconds)) s"
        }
    }

    @Test("SIGKILL at random moments, two writers at once: every read after reopening is exact")
    func killedWriters() async throws {
        let executable = try #require(
            BuiltExecutable.url(named: "imago-cache-stress"), "imago-cache-stress was not found beside the test bundle: run `swift build` first")
        let rounds = Int(ProcessInfo.processInfo.environment["IMAGO_CRASH_ROUNDS"] ?? "") ?? 100
        let figures = await withCheckedContinuation { (continuation: CheckedContinuation<Figures, Never>) in
            // Blocking waits and sleeps: on a thread of their own, not the test's executor.
            Thread.detachNewThread {
                continuation.resume(returning: Self.run(rounds: rounds, executable: executable))
            }
        }
        print("Crash safety: \(figures)")
        #expect(figures.failures.isEmpty, "\(figures.failures.prefix(5))")
        #expect(figures.rounds == rounds)
        #expect(figures.hits > 0, "no round left a readable entry: the helper never got to write")
    }

    private static func run(rounds: Int, executable: URL) -> Figures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imago-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var figures = Figures()
        var random = SplitMix(seed: 20_261_123)
        let start = Date()
        for round in 0..<rounds {
            var writers: [Process] = []
            for writer in 0..<2 {
                let seed = UInt64(round * 2 + writer + 1)
                guard let process = launch(executable, directory: directory, seed: seed, figures: &figures) else { continue }
                writers.append(process)
            }
            // Kill each at its own random moment, 0–20 ms after both are working.
            for process in writers {
                usleep(useconds_t(random.next() % 20_000))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                if process.terminationReason == .uncaughtSignal, process.terminationStatus == SIGKILL {
                    figures.kills += 1
                } else {
                    figures.failures.append(
                        "round \(round): the helper exited by itself with status \(process.terminationStatus)")
                }
            }
            verify(directory, round: round, figures: &figures)
            figures.rounds += 1
        }
        figures.seconds = Date().timeIntervalSince(start)
        return figures
    }

    /// Starts a helper and waits until it has opened the cache.
    private static func launch(_ executable: URL, directory: URL, seed: UInt64, figures: inout Figures) -> Process? {
        let process = Process()
        process.executableURL = executable
        // A short pause after each operation keeps the helpers from starving the tests that run
        // alongside; kills still land mid-write (a store of up to 96 KiB takes about as long).
        process.arguments = [directory.path, String(seed), String(keyCount), "200"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            figures.failures.append("could not start the helper: \(error)")
            return nil
        }
        let ready = output.fileHandleForReading.readData(ofLength: 6)
        if ready != Data("ready\n".utf8) {
            figures.failures.append("the helper did not start: \(String(decoding: ready, as: UTF8.self))")
        }
        return process
    }

    /// Reopens the cache, as the next process would, and reads every key.
    private static func verify(_ directory: URL, round: Int, figures: inout Figures) {
        let cache: DiskCache
        do {
            cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 768 * 1024))
        } catch {
            figures.failures.append("round \(round): the cache did not reopen: \(error)")
            return
        }
        for index in 0..<keyCount {
            figures.readsChecked += 1
            guard let data = cache.data(forKey: StressPayload.key(index)) else { continue }
            figures.hits += 1
            if data != StressPayload.bytes(for: index) {
                figures.failures.append("round \(round): key \(index) read \(data.count) wrong bytes")
            }
        }
    }
}
