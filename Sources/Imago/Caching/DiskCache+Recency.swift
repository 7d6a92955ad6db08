import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension DiskCache {
    /// Hits not yet written to their entry files' modification times (which carry recency across
    /// processes and restarts).
    ///
    /// A hit does not stamp its file (`futimens` would be a metadata write on every read): it
    /// updates this process's index in memory and lands here; the journal hands its touches back
    /// for writing at most once per ``Configuration/recencyPersistenceInterval``, and the cache
    /// also writes them before it scans the directory (so its own eviction sees them), when it
    /// sweeps, and when it is released. Other processes therefore see recency that is at most one
    /// interval old: LRU across processes stays approximately right at a fraction of the cost.
    ///
    /// The journal holds at most ``maximumPending`` names; hits on further names until the next
    /// hand-back still count in this process's index but are not written (writing them early
    /// would bring back a write per hit when many distinct entries are read).
    struct RecencyJournal {
        /// One entry's latest hit.
        struct Touch: Equatable {
            /// Seconds since 1970.
            var time: TimeInterval
            /// The file that was read: a newer file renamed over it keeps its own time.
            var inode: UInt64

            /// Becomes `other` if it is a later hit on the same file, or a hit on another file.
            mutating func keep(_ other: Touch) {
                if other.inode != inode || other.time > time { self = other }
            }
        }

        /// At most this many names wait (about 50 bytes each).
        static let maximumPending = 4_096

        private(set) var pending: [EntryName: Touch] = [:]
        /// When touches were last handed back; nil until the first hit (which starts the interval).
        private var lastDrain: TimeInterval?

        /// Records a hit at `time`. Returns the touches to write now: empty unless `interval`
        /// seconds have passed since the last hand-back (the first hit starts the interval).
        mutating func record(_ name: EntryName, inode: UInt64, at time: TimeInterval, interval: TimeInterval) -> [EntryName: Touch] {
            let touch = Touch(time: time, inode: inode)
            if pending.count < Self.maximumPending {
                // One lookup, whether the name is new or not (the `default:` subscript would
                // allocate a closure context on every call).
                if let previous = pending.updateValue(touch, forKey: name), previous.inode == inode, previous.time > time {
                    pending[name] = previous  // an earlier hit recorded late: the later one stays
                }
            } else if let index = pending.index(forKey: name) {
                pending.values[index].keep(touch)
            }
            guard let lastDrain else {
                self.lastDrain = time
                return [:]
            }
            return time - lastDrain >= interval ? drain(at: time) : [:]
        }

        /// Hands back every waiting touch and empties the journal.
        mutating func drain(at time: TimeInterval?) -> [EntryName: Touch] {
            if let time { lastDrain = time }
            defer { pending = [:] }
            return pending
        }
    }

    /// Writes hit times to entry files' modification times: only to the file that was read (same
    /// inode) and only forward in time, so a newer entry or a later hit elsewhere is never aged.
    func persist(_ touches: [EntryName: RecencyJournal.Touch]) {
        for (name, touch) in touches {
            let path = path(ofEntry: name)
            guard let status = FileSystem.status(atPath: path), status.isRegularFile, status.inode == touch.inode,
                status.modified < touch.time
            else { continue }
            FileSystem.setModified(atPath: path, to: touch.time)
        }
    }
}
