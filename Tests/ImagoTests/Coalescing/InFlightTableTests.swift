import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

@Suite("InFlightTable: who hears the work's news, and many keys at once")
struct InFlightTableTests {
    private static let cancelled = ImagePipeline.Error.cancelled(URL(string: "http://example.com/a.jpg")!)

    /// Works that hand their context out, then wait until `release` is called.
    private final class HeldWork: Sendable {
        let contexts: AsyncStream<InFlightTable<String, Int>.Context>
        private let started: AsyncStream<InFlightTable<String, Int>.Context>.Continuation
        /// Whether released, and the works waiting meanwhile.
        private let gate = Locked<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        init() { (contexts, started) = AsyncStream.makeStream() }

        func run(_ context: InFlightTable<String, Int>.Context) async -> Int {
            await withCheckedContinuation { continuation in
                let open = gate.withLock { gate in
                    if !gate.open { gate.waiting.append(continuation) }
                    return gate.open
                }
                started.yield(context)
                if open { continuation.resume() }
            }
            return 42
        }

        func release() {
            let waiting = gate.withLock { gate in
                gate.open = true
                defer { gate.waiting = [] }
                return gate.waiting
            }
            for work in waiting { work.resume() }
        }
    }

    /// Collects what a waiter is told.
    private final class Heard: Sendable {
        let progress = Locked<[Int64]>([])
        let updates = Locked(0)
    }

    @Test("Progress and updates reach exactly the waiters that asked, including one that joined late")
    func newsReachesTheWaitersThatAsked() async throws {
        let table = InFlightTable<String, Int>()
        let work = HeldWork()
        let first = Task { try await table.value(for: "k", priority: .normal, cancellation: Self.cancelled) { await work.run($0) } }
        var contexts = work.contexts.makeAsyncIterator()
        let context = try #require(await contexts.next())
        // Nobody asked yet: a report goes nowhere and the work is told not to make updates.
        #expect(!context.wantsUpdates)
        context.report(ImageTask.Progress(completed: 1, total: 10))

        let heard = Heard()
        let second = Task {
            try await table.value(
                for: "k", priority: .normal, cancellation: Self.cancelled,
                progress: { progress in heard.progress.withLock { $0.append(progress.completed) } },
                updates: { _ in heard.updates.withLock { $0 += 1 } }
            ) { _ in Issue.record("a second work started for a key with work under way"); return 0 }
        }
        #expect(await eventually { table.waiterCount(for: "k") == 2 })
        #expect(context.wantsUpdates)
        context.report(ImageTask.Progress(completed: 5, total: 10))
        context.send(.body(ReceivedBody(kept: Data([1, 2]), received: Data([1, 2]), attempt: 1)))
        #expect(heard.progress.withLock { $0 } == [5])
        #expect(heard.updates.withLock { $0 } == 1)

        // The waiter that asked leaves: the work is told again that nobody listens.
        second.cancel()
        await #expect(throws: ImagePipeline.Error.self) { try await second.value }
        #expect(!context.wantsUpdates)
        context.report(ImageTask.Progress(completed: 9, total: 10))
        #expect(heard.progress.withLock { $0 } == [5])

        work.release()
        #expect(try await first.value == 42)
        #expect(table.count == 0)
    }

    @Test("Works for many keys run side by side, each counted once, each finishing on its own")
    func manyKeys() async throws {
        let table = InFlightTable<String, Int>()
        let work = HeldWork()
        let keys = (0..<64).map { "https://example.com/\($0).jpg" }
        let callers = keys.flatMap { key in
            (0..<2).map { _ in
                Task { try await table.value(for: key, priority: .normal, cancellation: Self.cancelled) { await work.run($0) } }
            }
        }
        #expect(await eventually { keys.allSatisfy { table.waiterCount(for: $0) == 2 } })
        #expect(table.count == keys.count)
        work.release()
        for caller in callers { #expect(try await caller.value == 42) }
        #expect(table.count == 0)
    }

    @Test("A work whose only caller leaves while it is starting is cancelled, not left running")
    func abandonedWhileStarting() async throws {
        let table = InFlightTable<String, Int>()
        let callerHandle = Locked<Task<Int, any Error>?>(nil)
        let workCancelled = Locked(false)
        let caller = Task {
            try await table.value(for: "k", priority: .normal, cancellation: Self.cancelled) { _ in
                // Before its first suspension (on Linux this runs at once, before the table keeps the
                // task): the only caller leaves, so nobody is left to cancel the task through the table.
                var handle = callerHandle.withLock { $0 }
                for _ in 0..<10_000_000 where handle == nil {
                    sched_yield()
                    handle = callerHandle.withLock { $0 }
                }
                handle?.cancel()
                do {
                    try await Task.sleep(for: .seconds(600))
                } catch {
                    workCancelled.withLock { $0 = true }
                }
                return 7
            }
        }
        callerHandle.withLock { $0 = caller }
        await #expect(throws: ImagePipeline.Error.self) { try await caller.value }
        #expect(await eventually(within: .seconds(20)) { workCancelled.withLock { $0 } })
        #expect(table.count == 0)
    }
}
