import Synchronization

/// Hands every event to every current subscriber; costs one atomic load when nobody listens.
final class EventBroadcaster: Sendable {
    private let subscribers = Locked<[UInt64: AsyncStream<PipelineEvent>.Continuation]>([:])
    private let subscriberCount = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(0)

    /// Whether anyone listens (so callers can skip building events).
    var isActive: Bool { subscriberCount.load(ordering: .relaxed) > 0 }

    /// A new stream of the events from now on, until the consumer stops iterating.
    func subscribe(bufferingNewest limit: Int) -> AsyncStream<PipelineEvent> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(
            of: PipelineEvent.self, bufferingPolicy: .bufferingNewest(limit))
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let removed = self.subscribers.withLock { $0.removeValue(forKey: id) != nil }
            if removed { self.subscriberCount.subtract(1, ordering: .relaxed) }
        }
        subscribers.withLock { $0[id] = continuation }
        subscriberCount.add(1, ordering: .relaxed)
        return stream
    }

    /// Sends `event` (built only when someone listens) to every subscriber.
    func send(_ event: @autoclosure () -> PipelineEvent) {
        guard isActive else { return }
        let event = event()
        let continuations = subscribers.withLock { Array($0.values) }
        for continuation in continuations { continuation.yield(event) }
    }

    /// Ends every stream.
    func finish() {
        let continuations = subscribers.withLock { Array($0.values) }
        for continuation in continuations { continuation.finish() }
    }
}
