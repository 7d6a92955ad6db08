#if canImport(Network)
import Network
import Synchronization

/// NWPathMonitor's latest verdict, readable from any thread. Apple platforms only.
final class PathMonitor: Sendable {
    private let monitor = NWPathMonitor()
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
