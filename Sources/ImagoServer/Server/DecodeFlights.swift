import Synchronization

/// Decodes under way, by source and reduction: a request that needs a decode another request has
/// started waits for that one instead of decoding the same bytes again (the sizes of a `srcset`
/// arrive together).
final class DecodeFlights: Sendable {
    private let running = Mutex<[DecodedSourceStore.Key: Task<Result<DecodedSource, ProxyError>, Never>]>([:])

    /// The result of the decode for `key`: joins the one running, or runs `work` (to its end, even
    /// if this caller is cancelled: others may be waiting for it).
    func run(
        _ key: DecodedSourceStore.Key, _ work: @escaping @Sendable () async -> Result<DecodedSource, ProxyError>
    ) async -> Result<DecodedSource, ProxyError> {
        let (task, started) = running.withLock { running in
            if let task = running[key] { return (task, false) }
            let task = Task { await work() }
            running[key] = task
            return (task, true)
        }
        let result = await task.value
        if started { running.withLock { $0[key] = nil } }
        return result
    }

    /// Decodes running now.
    var count: Int { running.withLock { $0.count } }
}
