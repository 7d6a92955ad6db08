import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A size-limited, least-recently-used cache of image bytes in one directory, shared safely by
/// threads and by processes.
///
/// Each entry is one file, `entries/<sha256 of the key>`, holding a checksummed header (the full
/// key, times, metadata such as HTTP validators) and the payload; the raw key never appears in a
/// path. Writes go to `tmp/` and are renamed into place, so readers in any process see a whole
/// entry or none. A read verifies the header, the key, the length and the payload's CRC-32C; a file
/// that fails any check is deleted and the read is a miss, never wrong data.
///
/// Several processes may share one directory. Temporary files a killed writer left behind are
/// deleted when a cache opens once they are a minute old (and counted in the size until then); an
/// entry larger than this process's ``Configuration/maximumEntrySize`` is skipped, not deleted; and
/// each process scans the directory again before it evicts and after every tenth of
/// ``Configuration/sizeLimit`` it wrote, so N processes hold about one `sizeLimit`, not N.
///
/// Folders the cache creates are 0700 and entry files 0600: cached images can be private. A file
/// system fault (disk full, I/O error, permissions, a folder deleted) is a miss or a thrown store,
/// never a crash or a partial entry, and is logged once per cause through
/// ``Configuration/logger``.
///
/// Recency is the entry file's modification time (the disk is mounted relatime, so access times
/// cannot be trusted), set when an entry is stored; a hit is recorded in memory and written to the
/// file's time in batches (``Configuration/recencyPersistenceInterval``), so reads cost no
/// metadata write and recency still persists across processes, approximately.
/// Opening a cache reads nothing: sizes are gathered with one `readdir` + `stat` scan the first time
/// they are needed (a store, a sweep, ``statistics()``) and kept up to date afterwards.
///
/// Reads never throw. File I/O never runs under the cache's lock.
public final class DiskCache: Sendable {
    /// The directory holding the cache's `entries` and `tmp` folders.
    public let directory: URL
    /// The limits this cache was opened with.
    public let configuration: Configuration

    let now: @Sendable () -> Date
    /// ``Configuration/recencyPersistenceInterval`` in seconds.
    let persistenceInterval: TimeInterval
    let entriesPath: String
    let temporaryPath: String
    let index = Locked(Index())
    /// Held only while the index is being scanned, so one thread scans and the others wait for it;
    /// it counts the scans made (a `Locked` value must not be empty: see ``Locked``).
    let indexLoader = Locked(0)
    /// The system calls that can fail; tests inject faults here.
    let calls: FileSystem.Calls
    /// Fault causes already logged, so a full disk is reported once, not on every store.
    let loggedFaults = Locked(Set<FaultCause>())
    /// Entry files opened to be read: lets tests prove that opening a cache reads no entry.
    let entryFilesOpened = Atomic<Int>(0)

    /// Opens (creating if needed) the cache in `directory`. Nothing in it is read.
    ///
    /// - Parameters:
    ///   - directory: the cache's folder; several processes may share it.
    ///   - configuration: the limits; see ``Configuration`` for the defaults.
    ///   - now: the wall clock for lifetimes and recency; entries outlive the process, so this is
    ///     a `Date`, not a monotonic clock. Tests pass a controllable one.
    /// - Throws: ``Error/cannotCreateDirectory(path:code:)`` when the folders cannot be created.
    public convenience init(
        directory: URL, configuration: Configuration = .init(), now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        try self.init(directory: directory, configuration: configuration, now: now, calls: .system)
    }

    /// Opens the cache with the given system calls: the seam for file-system fault tests.
    init(
        directory: URL, configuration: Configuration, now: @escaping @Sendable () -> Date, calls: FileSystem.Calls
    ) throws {
        self.directory = directory
        self.configuration = configuration
        self.now = now
        self.calls = calls
        let root = directory.standardizedFileURL.path
        entriesPath = root + "/entries"
        temporaryPath = root + "/tmp"
        persistenceInterval = Self.seconds(configuration.recencyPersistenceInterval)
        try createDirectories()
        removeAbandonedTemporaryFiles(at: now())
    }

    /// Writes the hits not yet recorded in the files, so other processes and later runs see them.
    deinit { persistRecency() }

    /// Writes every waiting hit to its file's modification time (see ``RecencyJournal``).
    func persistRecency() {
        let time = now().timeIntervalSince1970
        let due = index.withLock { $0.recency.drain(at: time) }
        if !due.isEmpty { persist(due) }
    }

    /// The payload stored for `key`, if present, fresh and intact; refreshes its recency.
    /// An expired or damaged entry is deleted and reported as a miss.
    public func data(forKey key: CacheKey) -> Data? {
        entry(forKey: key)?.data
    }

    /// The entry stored for `key`, with its metadata and times; refreshes its recency.
    ///
    /// - Parameter key: the entry's key, checked against the one stored in the file.
    /// - Parameter allowExpired: return an expired entry (marked ``Entry/isExpired``) instead of
    ///   deleting it, to show stale data while offline or to revalidate it with its `ETag`.
    public func entry(forKey key: CacheKey, allowExpired: Bool = false) -> Entry? {
        let name = Self.entryName(for: key)
        let time = now()
        guard let (entry, file) = readEntry(named: name, key: key, at: time, allowExpired: allowExpired) else {
            index.withLock { $0.recordMiss(name) }
            return nil
        }
        let accessed = Index.File(size: file.size, lastAccess: time.timeIntervalSince1970, inode: file.inode)
        let interval = persistenceInterval
        let due = index.withLock { $0.recordHit(name, accessed, persistenceInterval: interval) }
        if !due.isEmpty { persist(due) }
        return entry
    }

    /// Whether an entry file exists for `key`. Only `stat`s the file: the entry may still turn out
    /// expired or damaged when read.
    public func contains(forKey key: CacheKey) -> Bool {
        FileSystem.status(atPath: path(ofEntry: Self.entryName(for: key)))?.isRegularFile ?? false
    }

    /// Stores `data` under `key`, replacing any previous entry, then evicts least recently used
    /// entries if the cache has grown past ``Configuration/sizeLimit``.
    ///
    /// - Parameters:
    ///   - data: the payload.
    ///   - key: the entry's key, stored in the file and checked on every read.
    ///   - metadata: small strings kept with the entry, such as `ETag` and `Last-Modified`.
    ///   - lifetime: how long the entry stays fresh; nil uses ``Configuration/entryLifetime``.
    /// - Throws: ``Error/entryTooLarge(_:size:limit:)`` for a payload over
    ///   ``Configuration/maximumEntrySize``; ``Error/cannotWriteEntry(path:code:)`` when the file
    ///   system refuses the write (disk full, permissions). A failed store leaves the previous entry.
    public func store(
        _ data: Data, forKey key: CacheKey, metadata: [String: String] = [:], lifetime: Duration? = nil
    ) throws {
        try store(data, forKey: key, metadata: metadata, expiry: .lifetime(lifetime))
    }

    /// Rewrites the entry for `key` with new metadata and a new lifetime, starting from now: what a
    /// `304 Not Modified` revalidation calls for. Works on expired entries.
    ///
    /// - Parameters:
    ///   - key: the entry to refresh.
    ///   - metadata: the new metadata; nil keeps the stored metadata.
    ///   - lifetime: how long the entry stays fresh from now; nil uses ``Configuration/entryLifetime``.
    /// - Returns: false when there was no intact entry to refresh.
    /// - Throws: as ``store(_:forKey:metadata:lifetime:)``.
    @discardableResult
    public func refresh(
        forKey key: CacheKey, metadata: [String: String]? = nil, lifetime: Duration? = nil
    ) throws -> Bool {
        guard let entry = entry(forKey: key, allowExpired: true) else { return false }
        try store(entry.data, forKey: key, metadata: metadata ?? entry.metadata, lifetime: lifetime)
        return true
    }

    /// Deletes the entry for `key`, if any.
    public func remove(forKey key: CacheKey) {
        let name = Self.entryName(for: key)
        unlink(path(ofEntry: name))
        index.withLock { $0.apply(.removed(name)) }
    }

    /// Deletes every entry. Hit and miss counts are kept.
    public func removeAll() {
        FileSystem.forEachName(inDirectory: entriesPath) { name, directory in
            _ = unlinkat(directory, name, 0)
        }
        index.withLock { $0.invalidate() }
    }

    /// Deletes expired entries, entries whose header is damaged, and temporary files left by a
    /// process that crashed mid-write more than an hour ago. Reads only entry headers.
    ///
    /// - Returns: the number of files deleted.
    @discardableResult
    public func sweep() -> Int {
        persistRecency()
        let time = now()
        var removed = 0
        var names: [EntryName] = []
        FileSystem.forEachName(inDirectory: entriesPath) { name, _ in
            if let name = EntryName(fileName: name) { names.append(name) }
        }
        for name in names {
            if removeIfExpired(named: name, at: time) {
                removed += 1
                index.withLock { $0.apply(.removed(name)) }
            }
        }
        return removed + removeAbandonedTemporaryFiles(at: time)
    }

    /// How old a temporary file must be to count as abandoned by a writer that died: far longer
    /// than any write takes.
    static let abandonedTemporaryFileAge: TimeInterval = 60

    /// Deletes temporary files older than ``abandonedTemporaryFileAge``: what a process killed
    /// mid-write leaves. Younger ones may belong to a live writer and are left (and counted).
    @discardableResult
    private func removeAbandonedTemporaryFiles(at time: Date) -> Int {
        var removed = 0
        let abandonedBefore = time.timeIntervalSince1970 - Self.abandonedTemporaryFileAge
        FileSystem.forEachName(inDirectory: temporaryPath) { name, directory in
            guard let status = FileSystem.status(of: name, inDirectory: directory), status.isRegularFile,
                status.modified < abandonedBefore, unlinkat(directory, name, 0) == 0
            else { return }
            removed += 1
        }
        return removed
    }

    /// The number of entries and their total size. The first call (or store) after opening scans
    /// the directory once with `readdir` + `stat`; later calls are answered from memory.
    public func statistics() -> Statistics {
        loadIndexIfNeeded()
        return index.withLock {
            Statistics(entryCount: $0.entryCount, totalBytes: $0.totalBytes, hits: $0.hits, misses: $0.misses)
        }
    }

    // MARK: - Entries

    /// The name of `key`'s entry file: the SHA-256 of its raw value.
    static func entryName(for key: CacheKey) -> EntryName {
        EntryName(key: key)
    }

    /// The path of the entry file `name`.
    func path(ofEntry name: EntryName) -> String {
        name.path(in: entriesPath)
    }

    /// Calls `body` with the path of the entry file `name` as a C string on the stack.
    func withPath<Result>(ofEntry name: EntryName, _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        name.withPath(in: entriesPath, body)
    }
}
