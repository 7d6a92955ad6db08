#if canImport(Network) && !os(watchOS)
import Network
import Synchronization

/// NWPathMonitor's latest verdict, readable from any thread. Apple platforms but watchOS, where
/// an ordinary app's monitor never leaves `.unsatisfied` (TN3135), so ``Connectivity/system`` does
/// not use it there.
///
/// A plain `Sendable` class is enough: `NWPathMonitor` is `Sendable` from macOS 14, iOS 17,
/// tvOS 17 and visionOS 1 (its interface in the SDK says so), below every deployment target of
/// this package, and the verdict itself is an `Atomic`.
final class PathMonitor: Sendable {
    private let monitor = NWPathMonitor()
    /// Reachable until the first path arrives (a moment after `start`): a request is tried rather
    /// than held back on a guess.
    private let satisfied = Atomic<Bool>(true)

    init() {
        monitor.pathUpdateHandler = { [weak self] path in
            self?.satisfied.store(path.status == .satisfied, ordering: .relaxed)
        }
        monitor.start(queue: DispatchQueue(label: "imago.connectivity"))
    }

    deinit { monitor.cancel() }

    var isSatisfied: Bool { satisfied.load(ordering: .relaxed) }
}
#endif
