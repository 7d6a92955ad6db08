import Foundation

extension DiskCache {
    /// What the cache knows about its files, for size accounting and LRU eviction, kept behind the
    /// cache's lock: entry name → (file size, last access), their total, and hit counts.
    ///
    /// The index starts unloaded, so opening a large cache reads nothing. The first operation that
    /// needs sizes loads it with one directory scan (`readdir` + `stat`, no file is opened); changes
    /// made while that scan runs are journaled and replayed on top of its result.
    struct Index {
        struct File: Equatable {
            var size: Int
            /// Seconds since 1970: the last store or hit this process knows of; the entry file's
            /// modification time when scanned (access times cannot be trusted on relatime mounts).
            var lastAccess: TimeInterval
            /// Identifies the file, so evicting it cannot delete a newer file renamed over it.
            var inode: UInt64
        }

        /// What a directory scan found.
        struct Scan {
            var files: [EntryName: File]
            /// Bytes in temporary files: writes under way, or left by a writer that was killed.
            /// They take disk space, so they count toward the limit, but are never evicted.
            var temporaryBytes = 0
        }

        enum Change {
            /// An entry was written or read: it exists with this size and access time.
            case present(EntryName, File)
            /// An entry file was deleted or found missing.
            case removed(EntryName)
        }

        private enum Phase { case unloaded, loading, loaded }

        private var phase = Phase.unloaded
        private var journal: [Change] = []
        private var files: [EntryName: File] = [:]
        /// Entry bytes plus ``Scan/temporaryBytes`` of the last scan.
        private(set) var totalBytes = 0
        /// Bytes this process stored since the last scan: other processes may have written as much.
        private var writtenSinceScan = 0
        private(set) var hits = 0
        private(set) var misses = 0
        /// Hits waiting to be written to the files' modification times.
        var recency = RecencyJournal()

        var isLoaded: Bool { phase == .loaded }
        var entryCount: Int { files.count }

        /// Records a change; an unloaded index ignores it, since its future scan will see the files.
        mutating func apply(_ change: Change) {
            switch phase {
            case .unloaded: return
            case .loading: journal.append(change)
            case .loaded: perform(change)
            }
        }

        /// Records a hit in memory. Returns the touches due to be written to the files now
        /// (see ``RecencyJournal``); usually none.
        mutating func recordHit(_ name: EntryName, _ file: File, persistenceInterval: TimeInterval) -> [EntryName: RecencyJournal.Touch] {
            hits += 1
            apply(.present(name, file))
            return recency.record(name, inode: file.inode, at: file.lastAccess, interval: persistenceInterval)
        }

        mutating func recordWrite(_ size: Int) {
            writtenSinceScan += size
        }

        /// Whether to scan again before deciding what to evict: when this process's view is over
        /// `limit`, or when it wrote a tenth of `limit` since it last looked (another process may
        /// have written as much, unseen).
        func needsRescan(limit: Int) -> Bool {
            phase == .loaded && (totalBytes > limit || writtenSinceScan >= max(limit / 10, 1))
        }

        mutating func recordMiss(_ name: EntryName) {
            misses += 1
            apply(.removed(name))
        }

        /// Marks the start of a scan; false if the index is already loaded.
        mutating func beginLoading() -> Bool {
            guard phase != .loaded else { return false }
            phase = .loading
            journal = []
            return true
        }

        /// Installs a scan's result and replays what changed meanwhile. A result arriving after
        /// ``invalidate()`` is stale and dropped.
        mutating func finishLoading(_ scanned: Scan) {
            guard phase == .loading else { return }
            files = scanned.files
            totalBytes = scanned.files.values.reduce(scanned.temporaryBytes) { $0 + $1.size }
            writtenSinceScan = 0
            phase = .loaded
            journal.forEach { perform($0) }
            journal = []
        }

        /// Forgets every file (after `removeAll`, or when the directory vanished); the next
        /// operation that needs sizes scans again.
        mutating func invalidate() {
            phase = .unloaded
            journal = []
            files = [:]
            totalBytes = 0
            writtenSinceScan = 0
        }

        /// When the total exceeds `limit`, removes from the index and returns the least recently
        /// used entries whose removal brings the total down to `target`; the caller deletes them.
        mutating func evictions(limit: Int, target: Int) -> [(name: EntryName, inode: UInt64)] {
            guard phase == .loaded, totalBytes > limit else { return [] }
            var victims: [(name: EntryName, inode: UInt64)] = []
            for (name, file) in files.sorted(by: { $0.value.lastAccess < $1.value.lastAccess }) {
                guard totalBytes > target else { break }
                victims.append((name, file.inode))
                totalBytes -= file.size
                files[name] = nil
            }
            return victims
        }

        private mutating func perform(_ change: Change) {
            switch change {
            case .present(let name, let file):
                totalBytes += file.size - (files.updateValue(file, forKey: name)?.size ?? 0)
            case .removed(let name):
                totalBytes -= files.removeValue(forKey: name)?.size ?? 0
            }
        }
    }
}
