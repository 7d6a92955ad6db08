import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

@Suite struct LockedTests {
    /// Memory the deliberate race writes from two threads, outside any lock of its own.
    final class Shared: @unchecked Sendable { var count = 0 }

    /// The environment variable that turns ``deliberateRace()`` on: only
    /// ``threadSanitizerSeesTheLock(_:)`` sets it, in the child it starts.
    static let raceFlag = "IMAGO_DELIBERATE_RACE"

    struct Failure: Error, Equatable { let value: Int }

    @Test func excludesConcurrentWriters() async {
        let lock = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<10_000 { lock.withLock { $0 += 1 } } }
            }
        }
        #expect(lock.withLock { $0 } == 80_000)
    }

    @Test func passesResultsAndErrorsThrough() {
        let lock = Locked([1, 2])
        #expect(lock.withLock { $0.removeLast() } == 2)
        #expect(throws: Failure(value: 1)) {
            try lock.withLock { (value: inout [Int]) throws(Failure) in
                value.append(3)
                throw Failure(value: value.count - 1)
            }
        }
        // A copy shares the value: what the closure changed before it threw stays.
        let copy = lock
        #expect(copy.withLock { $0 } == [1, 3])
    }

    /// Two threads add to one count: under ``Locked`` both (`locked`), or one under it and one not
    /// (`unlocked`), which is a data race ThreadSanitizer must report. Runs only in the child that
    /// ``threadSanitizerSeesTheLock(_:)`` starts.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[LockedTests.raceFlag] != nil))
    func deliberateRace() {
        let unlocked = ProcessInfo.processInfo.environment[Self.raceFlag] == "unlocked"
        let lock = Locked(0)
        let shared = Shared()
        let rounds = 20_000
        let finished = DispatchSemaphore(value: 0)
        for index in 0..<2 {
            Thread {
                for _ in 0..<rounds {
                    if unlocked && index == 1 {
                        shared.count += 1
                    } else {
                        lock.withLock { held in
                            held += 1
                            shared.count += 1
                        }
                    }
                }
                finished.signal()
            }.start()
        }
        finished.wait()
        finished.wait()
        if !unlocked {
            let (held, count) = lock.withLock { ($0, shared.count) }
            #expect(held == 2 * rounds)
            #expect(count == 2 * rounds)
        }
    }

    /// Under ThreadSanitizer (the tsan stage of `.ci/run` sets `IMAGO_SANITIZE=thread`), this test
    /// binary is run again on ``deliberateRace()`` alone: TSan must see the order `Locked` creates
    /// between two threads (no report when both hold it) and report the race when one does not.
    /// (`Synchronization.Mutex`, which these types used before, waits on a futex TSan does not
    /// intercept when contended, and drew reports of races inside `withLock`.)
    @Test(
        .enabled(if: ProcessInfo.processInfo.environment["IMAGO_SANITIZE"] == "thread"),
        arguments: ["locked", "unlocked"])
    func threadSanitizerSeesTheLock(_ mode: String) async throws {
        var environment = ProcessInfo.processInfo.environment
        environment[Self.raceFlag] = mode
        let result = try await CommandRunner.run(
            URL(fileURLWithPath: CommandLine.arguments[0]),
            arguments: ["--testing-library", "swift-testing", "--filter", "LockedTests/deliberateRace"],
            environment: environment, timeLimit: .seconds(600))
        let report = result.errorOutput + result.output
        #expect(!result.timedOut)
        #expect(report.contains("deliberateRace"), "the child did not run the race: \(report.suffix(2000))")
        if mode == "locked" {
            #expect(result.exited(with: 0), "\(report.suffix(4000))")
            #expect(!report.contains("ThreadSanitizer"), "\(report.suffix(4000))")
        } else {
            // A Swift class property written on two threads is reported as an access race.
            let reported = ["data race", "Swift access race"].contains { report.contains("WARNING: ThreadSanitizer: \($0)") }
            #expect(reported, "\(report.suffix(4000))")
            #expect(!result.exited(with: 0))
        }
    }
}
