import Foundation
import Logging

extension DiskCache {
    /// The limits of a ``DiskCache``. Every field has a default.
    public struct Configuration: Sendable {
        /// The most bytes of entry files to keep. After a store pushes the total past it, least
        /// recently used entries are deleted until the total is at most 90% of it, so eviction runs
        /// once per batch of stores rather than on every one. Default: 150 MiB.
        public var sizeLimit: Int
        /// How long an entry stays fresh when ``DiskCache/store(_:forKey:metadata:lifetime:)`` is
        /// given no lifetime; nil keeps entries until evicted. Default: nil.
        public var entryLifetime: Duration?
        /// The largest payload accepted; a larger store throws ``DiskCache/Error/entryTooLarge(_:size:limit:)``.
        /// Default: 50 MiB.
        /// Entries larger than this that another process stored are skipped, not deleted.
        public var maximumEntrySize: Int
        /// Where file-system faults (disk full, I/O errors, permissions, a deleted folder) are
        /// reported, once per operation and `errno`, not on every request. Default: a logger
        /// labelled `imago.disk-cache` that discards everything.
        public var logger: Logger
        /// How often hits are written to the entry files' modification times, where other processes
        /// (and later runs) read recency for LRU eviction. A hit itself writes nothing: it updates
        /// this process's index in memory, and the times are written in one batch once this long
        /// has passed (on the injected clock), and also before each directory scan, on
        /// ``DiskCache/sweep()`` and when the cache is released. Default: 30 seconds.
        public var recencyPersistenceInterval: Duration

        /// A configuration with every default but what is given.
        public init(
            sizeLimit: Int = 150 * 1024 * 1024, entryLifetime: Duration? = nil, maximumEntrySize: Int = 50 * 1024 * 1024,
            logger: Logger = Logger(label: "imago.disk-cache", factory: { _ in SwiftLogNoOpLogHandler() }),
            recencyPersistenceInterval: Duration = .seconds(30)
        ) {
            self.sizeLimit = sizeLimit
            self.entryLifetime = entryLifetime
            self.maximumEntrySize = maximumEntrySize
            self.logger = logger
            self.recencyPersistenceInterval = recencyPersistenceInterval
        }
    }

    /// A snapshot of a ``DiskCache``'s size and of how well it served this process's reads.
    public struct Statistics: Sendable, Hashable {
        /// Entry files in the directory.
        public var entryCount: Int
        /// Their total size in bytes (headers included), plus temporary files (writes under way,
        /// or left by a killed writer until they are swept).
        public var totalBytes: Int
        /// Reads in this process that returned an entry.
        public var hits: Int
        /// Reads in this process that found nothing, or an expired or damaged entry.
        public var misses: Int
    }
}
