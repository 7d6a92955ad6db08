import Synchronization

/// The table's storage: an entry per key under way, in shards behind their own locks.
extension InFlightTable {
    /// One piece of work and its waiters, in the table under its key until it finishes or is
    /// abandoned; its work's ``Context`` holds it, so the work reaches it without a lookup.
    ///
    /// A class: as a struct in the dictionary, every lookup copied it whole (its waiters, task,
    /// observer and what it keeps, a retain and a release apiece; 27 of each per download), and
    /// every change went through the dictionary's accessors. `@unchecked Sendable`: its variables
    /// are read and written only under its shard's lock, and its counts of interest are atomics.
    final class Entry: @unchecked Sendable {
        var machine = SharedWorkStateMachine<Waiter>()
        var task: Task<Void, Never>?
        /// Told when the highest waiter priority changes (the scheduler moves the download).
        var priorityObserver: (@Sendable (ImageRequest.Priority) -> Void)?
        /// What the work keeps for whoever takes it over; cancelled when the work is abandoned.
        var kept: Kept?
        /// Out of the table: finished or abandoned. What the work asks of it from then on finds
        /// nothing, as a lookup of a key no longer there would.
        private(set) var isRemoved = false
        /// How many waiters asked for progress, and for updates. Changed under the shard's lock,
        /// read without it: the work reports every piece of a body, and with nobody listening
        /// (the common case) a report costs one atomic load instead of the lock. A waiter that
        /// joins meanwhile misses at most that one report; progress and bodies are cumulative, so
        /// the next one tells it everything.
        let progressInterest = Atomic<Int>(0)
        let updatesInterest = Atomic<Int>(0)

        /// Counts `waiter` in (`change` 1) or out (-1) of the interest; under its shard's lock.
        func count(_ waiter: Waiter, _ change: Int) {
            if waiter.progress != nil { progressInterest.add(change, ordering: .relaxed) }
            if waiter.updates != nil { updatesInterest.add(change, ordering: .relaxed) }
        }

        /// Marks the entry removed (its key's slot is the caller's to clear) and takes out what
        /// it holds, to be released (or cancelled) after the lock: the work may keep the entry
        /// itself alive a while, never what it held.
        func remove() -> Leftovers {
            isRemoved = true
            defer {
                task = nil
                priorityObserver = nil
                kept = nil
            }
            return Leftovers(task: task, priorityObserver: priorityObserver, kept: kept)
        }
    }

    /// What a removed entry held: dropped after the lock, and before any waiter resumes, so a
    /// caller never sees what the work kept still alive.
    struct Leftovers: Sendable {
        let task: Task<Void, Never>?
        let priorityObserver: (@Sendable (ImageRequest.Priority) -> Void)?
        let kept: Kept?
    }

    /// A part of the work that outlives the task it started in, and how to stop it.
    struct Kept: Sendable {
        let value: any Sendable
        let cancel: @Sendable () -> Void
    }

    struct State: Sendable {
        var entries: [Key: Entry] = [:]

        /// Takes the entry of `key` out of the table.
        mutating func remove(_ key: Key) -> Leftovers? {
            entries.removeValue(forKey: key)?.remove()
        }
    }

    /// One part of the table: the keys whose hash falls into it.
    final class Shard: Sendable {
        let state = Locked(State())
    }
}
