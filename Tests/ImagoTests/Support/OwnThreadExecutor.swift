import Dispatch

/// A task executor with a serial dispatch queue of its own, whose thread is not one of the
/// cooperative pool's.
///
/// Why: Swift Testing starts every test at once, and on 2 cores the pool has two threads. A
/// synchronous body that decodes or resamples a large image for seconds holds one of them, and
/// loopback tests waiting for a response queue up behind a backlog of such bodies. Run there
/// (``offThePool(_:)``), the body leaves the pool to the tests that wait.
final class OwnThreadExecutor: TaskExecutor {
    /// Set on the executor's queue, so a test can tell where it runs.
    static let marker = DispatchSpecificKey<Bool>()

    private let queue = DispatchQueue(label: "imago.tests.own-thread")

    init() { queue.setSpecific(key: Self.marker, value: true) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Whether the caller runs on some ``OwnThreadExecutor``'s queue.
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) == true }
}

/// Runs a CPU-heavy synchronous test body off the cooperative pool (see ``OwnThreadExecutor``),
/// in the calling test's task, so its expectations count as usual.
func offThePool<Value>(_ body: () throws -> Value) async rethrows -> Value {
    try await withTaskExecutorPreference(OwnThreadExecutor()) { try body() }
}
