import Foundation

extension MemoryCache {
    /// The limits of a ``MemoryCache``. Every field has a default suited to an app or a server
    /// process that shows images.
    public struct Configuration: Sendable {
        /// The most bytes of values (decoded pixels) to keep. Default: 20% of physical memory,
        /// at most 512 MiB.
        public var costLimit: Int
        /// The most values to keep. Default: 1,000.
        public var countLimit: Int
        /// How long a value stays valid after it is stored; nil keeps it until evicted. Default: nil.
        public var entryLifetime: Duration?
        /// The most bytes of pinned values; a pinned store beyond it is stored unpinned. Default: a
        /// quarter of ``costLimit`` (and it follows ``costLimit`` until set). Never more than
        /// ``costLimit`` in effect.
        public var pinnedCostLimit: Int {
            get { explicitPinnedCostLimit ?? costLimit / 4 }
            set { explicitPinnedCostLimit = newValue }
        }

        private var explicitPinnedCostLimit: Int?

        /// 20% of physical memory, at most 512 MiB.
        public static var defaultCostLimit: Int {
            let fifth = ProcessInfo.processInfo.physicalMemory / 5
            return Int(min(fifth, 512 * 1024 * 1024))
        }

        /// A configuration with every default but what is given.
        public init(
            costLimit: Int = Configuration.defaultCostLimit,
            countLimit: Int = 1_000,
            entryLifetime: Duration? = nil,
            pinnedCostLimit: Int? = nil
        ) {
            self.costLimit = costLimit
            self.countLimit = countLimit
            self.entryLifetime = entryLifetime
            self.explicitPinnedCostLimit = pinnedCostLimit
        }
    }

    /// A snapshot of a ``MemoryCache``'s contents and of how well it has served lookups.
    public struct Statistics: Sendable, Hashable {
        /// Stored values, pinned included.
        public var count: Int
        /// Sum of their costs.
        public var cost: Int
        /// Pinned values.
        public var pinnedCount: Int
        /// Sum of the pinned values' costs.
        public var pinnedCost: Int
        /// Lookups with ``MemoryCache/value(forKey:)`` that found a value.
        public var hits: Int
        /// Lookups that found nothing or an expired value.
        public var misses: Int
    }

    /// The configuration's limits as the storage applies them.
    struct Limits {
        var cost: Int
        var count: Int
        var pinnedCost: Int

        init(_ configuration: Configuration) {
            cost = configuration.costLimit
            count = configuration.countLimit
            pinnedCost = min(configuration.pinnedCostLimit, configuration.costLimit)
        }
    }
}
