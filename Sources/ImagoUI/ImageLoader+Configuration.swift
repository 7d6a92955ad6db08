import Imago

extension ImageLoader {
    /// How a loader treats time and visibility. Each field has a default suited to images in a
    /// scrolling list; a screen that must never spin for long sets a ``timeout``.
    public struct Configuration: Sendable {
        /// How long a load runs before ``Phase/loading(_:waitingForNetwork:)`` says it is waiting
        /// for the network, when the pipeline's `connectivity` finds it unreachable. Checked again
        /// at this interval while loading, so the hint goes when the network is back. Pair it with
        /// the pipeline's `waitsForConnectivity`, or the load fails before the hint can show.
        /// Default: 0.5 s.
        public var offlineHintDelay: Duration
        /// How long a load may run before it is stopped and fails with
        /// ``ImageLoader/Error/timedOut(_:after:)``; `nil` lets it run as long as the pipeline
        /// does. Default: `nil`.
        public var timeout: Duration?
        /// Visible images load at this priority, or at the request's own when that is higher.
        /// Default: `.high`, ahead of prefetching and of images that have scrolled away.
        public var visiblePriority: ImageRequest.Priority
        /// What happens to an unfinished load when its view disappears. Default: ``DisappearBehavior/cancel``.
        public var disappearBehavior: DisappearBehavior
        /// The clock of ``offlineHintDelay`` and ``timeout``. Default: `ContinuousClock()`; tests
        /// inject a manual one.
        public var clock: any Clock<Duration>

        /// A configuration with every default but what is given.
        public init(
            offlineHintDelay: Duration = .milliseconds(500),
            timeout: Duration? = nil,
            visiblePriority: ImageRequest.Priority = .high,
            disappearBehavior: DisappearBehavior = .cancel,
            clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.offlineHintDelay = offlineHintDelay
            self.timeout = timeout
            self.visiblePriority = visiblePriority
            self.disappearBehavior = disappearBehavior
            self.clock = clock
        }
    }

    /// What an unfinished load does when its view leaves the screen.
    public enum DisappearBehavior: Sendable, Hashable {
        /// Stop it and return to ``Phase/empty``; ``ImageLoader/onAppear()`` starts it again.
        /// Images nobody sees cost no bandwidth, and what did finish is in the memory cache, so
        /// scrolling back is instant. The default.
        case cancel
        /// Let it finish at this priority (or the request's own, when lower), behind the visible
        /// images: scrolling back finds it further along, at the cost of downloads never seen.
        case lowerPriority(to: ImageRequest.Priority)
    }
}
