import Imago

/// Trims the memory caches of the pipelines ImagoUI uses when the system runs short of memory.
///
/// Every ``ImageLoader`` (so every `LazyImage` and image-view helper) registers its pipeline with
/// ``shared``, which holds it weakly; on Apple platforms ``shared`` listens to the system's memory
/// warnings (UIKit's notification, macOS's memory-pressure source) from its first registration
/// and calls ``trim(for:)``. Call ``trim(for:)`` yourself for a pipeline used without ImagoUI
/// views, after ``watch(_:)``.
public final class MemoryPressureTrimmer: Sendable {
    /// The trimmer ImagoUI's loaders register with; listens to the system on Apple platforms.
    public static let shared = MemoryPressureTrimmer(listensToSystem: true)

    /// How much each level keeps.
    public let policy: MemoryTrimPolicy
    private let pipelines = Locked<[ObjectIdentifier: WeakPipeline]>([:])
    private let listensToSystem: Bool
    private let subscription = Locked<SystemSubscription?>(nil)

    /// A trimmer with `policy` that trims only when ``trim(for:)`` is called.
    public convenience init(policy: MemoryTrimPolicy = .default) {
        self.init(policy: policy, listensToSystem: false)
    }

    private init(policy: MemoryTrimPolicy = .default, listensToSystem: Bool) {
        self.policy = policy
        self.listensToSystem = listensToSystem
    }

    /// Trims `pipeline`'s memory cache under pressure from now on, for as long as the pipeline
    /// lives. Watching a pipeline again does nothing.
    public func watch(_ pipeline: ImagePipeline) {
        let key = ObjectIdentifier(pipeline)
        let isFirst = pipelines.withLock { pipelines in
            if pipelines[key]?.pipeline === pipeline { return false }  // every loader's call, cheaply
            pipelines = pipelines.filter { $0.value.pipeline != nil }
            pipelines[key] = WeakPipeline(pipeline: pipeline)
            return pipelines.count == 1
        }
        if isFirst, listensToSystem { startListening() }
    }

    /// The pipelines watched and still alive.
    public var watchedPipelines: [ImagePipeline] {
        pipelines.withLock { $0.values.compactMap(\.pipeline) }
    }

    /// Trims every watched pipeline's memory cache as ``policy`` says for `pressure`; returns the
    /// bytes of decoded images freed.
    @discardableResult
    public func trim(for pressure: MemoryPressure) -> Int {
        var freed = 0
        for pipeline in watchedPipelines {
            guard let cache = pipeline.memoryCache else { continue }
            let before = cache.totalCost
            guard let target = policy.targetCost(for: pressure, currentCost: before) else { continue }
            cache.trim(toCost: target)
            freed += max(before - cache.totalCost, 0)
        }
        return freed
    }

    /// Subscribes to the system's memory warnings once (Apple platforms; nothing elsewhere).
    private func startListening() {
        subscription.withLock { subscription in
            if subscription == nil {
                subscription = SystemSubscription.start { [weak self] pressure in self?.trim(for: pressure) }
            }
        }
    }

    private struct WeakPipeline: Sendable {
        weak var pipeline: ImagePipeline?
    }
}
