#if canImport(Combine)
import Combine
import Foundation

extension ImagePipeline {
    /// Publishes the image for `request`, then finishes, or fails with the load's
    /// ``ImagePipeline/Error``. The load starts when the subscriber first asks for a value and is
    /// cancelled with the subscription, as ``ImageTask/cancel()`` does.
    public func imagePublisher(with request: ImageRequest) -> AnyPublisher<ImageResponse, Error> {
        ImageTaskPublisher(pipeline: self, request: request, sendsPreviews: false, sendsImage: true)
            .compactMap { value in if case .image(let response) = value { response } else { nil } }
            .eraseToAnyPublisher()
    }

    /// Publishes each preview of `request`'s image while it downloads (when
    /// ``Configuration/decodesPreviews`` or the request's own ``ImageRequest/decodesPreviews`` is
    /// on), then the image itself, then finishes, or fails as the load does: one stream to show,
    /// in which no preview follows the image. A preview the subscriber has not asked for yet is
    /// skipped; the image waits for its demand. The load starts at the first demand and is
    /// cancelled with the subscription.
    public func progressiveImagePublisher(with request: ImageRequest) -> AnyPublisher<ImageContainer, Error> {
        ImageTaskPublisher(pipeline: self, request: request, sendsPreviews: true, sendsImage: true)
            .map { value in
                switch value {
                case .preview(let preview): preview.container
                case .image(let response): response.container
                }
            }
            .eraseToAnyPublisher()
    }
}

/// A publisher over one ``ImageTask``, through an ``ImageTaskRelay``.
private struct ImageTaskPublisher: Publisher {
    typealias Output = ImageTaskRelay.Value
    typealias Failure = ImagePipeline.Error

    let pipeline: ImagePipeline
    let request: ImageRequest
    let sendsPreviews: Bool
    let sendsImage: Bool

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = ImageTaskSubscription(subscriber: subscriber)
        subscription.relay = ImageTaskRelay(
            pipeline: pipeline, request: request, sendsPreviews: sendsPreviews, sendsImage: sendsImage,
            receive: { [weak subscription] value in subscription?.forward(value) },
            complete: { [weak subscription] error in subscription?.end(error) })
        subscriber.receive(subscription: subscription)
    }
}

/// The subscription: demand and cancellation go to the relay; what the relay sends goes to the
/// subscriber (whose own demand it adds to what it asks for next).
private final class ImageTaskSubscription<S: Subscriber>: Subscription, @unchecked Sendable
where S.Input == ImageTaskRelay.Value, S.Failure == ImagePipeline.Error {
    // @unchecked: `subscriber` is read and cleared under `lock`; the relay calls it one value at a
    // time, outside the lock, so a subscriber may cancel from inside `receive`.
    private let lock = NSLock()
    private var subscriber: S?
    var relay: ImageTaskRelay?

    init(subscriber: S) { self.subscriber = subscriber }

    func request(_ demand: Subscribers.Demand) {
        relay?.request(demand.max ?? Int.max)
    }

    func cancel() {
        relay?.cancel()
        lock.withLock { subscriber = nil }
    }

    func forward(_ value: ImageTaskRelay.Value) {
        guard let subscriber = lock.withLock({ subscriber }) else { return }
        let more = subscriber.receive(value)
        if more > .none { relay?.request(more.max ?? Int.max) }
    }

    func end(_ error: ImagePipeline.Error?) {
        let subscriber = lock.withLock {
            defer { self.subscriber = nil }
            return self.subscriber
        }
        subscriber?.receive(completion: error.map { .failure($0) } ?? .finished)
    }
}
#endif
