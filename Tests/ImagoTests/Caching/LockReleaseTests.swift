import Foundation
import Testing

@testable import Imago

/// An object that, when freed, checks from another thread whether a lock is free: `probe` runs
/// there and must return within the bound. Freed under the lock, the probe would wait for the
/// lock this thread holds, and the check fails (after the bound) instead of the test hanging.
final class ReleaseProbe: Sendable {
    /// One entry per probe freed: whether the lock was free then.
    final class Results: Sendable {
        private let values = Locked<[Bool]>([])
        func append(_ value: Bool) { values.withLock { $0.append(value) } }
        var all: [Bool] { values.withLock { $0 } }
    }

    private let probe: @Sendable () -> Void
    private let results: Results

    init(recordingInto results: Results, probe: @escaping @Sendable () -> Void) {
        self.probe = probe
        self.results = results
    }

    deinit {
        let done = DispatchSemaphore(value: 0)
        let probe = self.probe
        Thread.detachNewThread {
            probe()
            done.signal()
        }
        let free = done.wait(timeout: .now() + 20) == .success
        results.append(free)
    }
}

/// Lets a probe reach an object created after it.
final class LateReference<Object: Sendable>: Sendable {
    private let object = Locked<Object?>(nil)
    func set(_ value: Object) { object.withLock { $0 = value } }
    var value: Object? { object.withLock { $0 } }
}

@Suite("Nothing is freed while a lock is held")
struct LockReleaseTests {
    @Test("MemoryCache frees evicted, replaced, removed and trimmed values after its lock")
    func memoryCache() {
        let results = ReleaseProbe.Results()
        let reference = LateReference<MemoryCache<String, ReleaseProbe>>()
        let cache = MemoryCache<String, ReleaseProbe>(configuration: .init(costLimit: 10, countLimit: 2))
        reference.set(cache)
        func probe() -> ReleaseProbe {
            ReleaseProbe(recordingInto: results) { _ = reference.value?.totalCount }
        }
        cache.store(probe(), forKey: "a", cost: 1)
        cache.store(probe(), forKey: "b", cost: 1)
        cache.store(probe(), forKey: "c", cost: 1)  // evicts a
        cache.store(probe(), forKey: "c", cost: 1)  // replaces c
        cache.removeValue(forKey: "b")
        cache.trim(toCount: 0)
        cache.store(probe(), forKey: "d", cost: 1)
        cache.removeAll()
        #expect(results.all == [true, true, true, true, true])
    }

    @Test("InFlightTable frees a finished entry (and what its observer holds) after its lock")
    func inFlightTable() async throws {
        let results = ReleaseProbe.Results()
        let table = InFlightTable<String, Int>()
        let value = try await table.value(for: "k", priority: .normal, cancellation: .cancelled(URL(string: "http://x")!)) {
            context in
            let probe = ReleaseProbe(recordingInto: results) { _ = table.count }
            context.observePriority { _ in withExtendedLifetime(probe) {} }
            return 7
        }
        #expect(value == 7)
        #expect(results.all == [true])
    }

    @Test("InFlightTable frees an abandoned entry (and what its observer holds) after its lock")
    func abandonedInFlightEntry() async {
        let results = ReleaseProbe.Results()
        let table = InFlightTable<String, Int>()
        let (observing, observed) = AsyncStream.makeStream(of: Void.self)
        let caller = Task {
            try await table.value(for: "k", priority: .normal, cancellation: .cancelled(URL(string: "http://x")!)) {
                context in
                do {  // the observer is the probe's only owner from here on
                    let probe = ReleaseProbe(recordingInto: results) { _ = table.count }
                    context.observePriority { _ in withExtendedLifetime(probe) {} }
                }
                observed.yield()
                try? await Task.sleep(for: .seconds(60))  // until its only caller leaves
                return 7
            }
        }
        for await _ in observing { break }
        caller.cancel()
        let result = await caller.result
        #expect(throws: ImagePipeline.Error.self) { try result.get() }
        #expect(results.all == [true])
        #expect(table.count == 0)
    }
}
