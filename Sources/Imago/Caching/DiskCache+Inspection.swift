import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Looking into a cache from outside the pipeline (`imago cache list|verify|sweep`): listing every
/// entry from its header alone, verifying every entry with the same checks a read makes, and
/// trimming to a size limit. Built on the cache's own reads and removals, so it follows any change
/// to how entries are checked.
extension DiskCache {
    /// One entry as its header describes it; no payload is read.
    public struct EntrySummary: Sendable, Hashable {
        /// The key the entry was stored under.
        public var key: CacheKey
        /// The entry file's name inside `entries/`.
        public var fileName: String
        /// The file's size in bytes, header included.
        public var fileSize: Int
        /// The payload's size in bytes, as the header declares it.
        public var payloadSize: Int
        /// When the entry was stored or last refreshed.
        public var createdAt: Date
        /// When the entry stops being fresh; nil means never.
        public var expiresAt: Date?
        /// When the entry was last stored or read (the file's modification time).
        public var lastAccess: Date

        /// Whether the entry has expired at `date`.
        public func isExpired(at date: Date) -> Bool { expiresAt.map { $0 <= date } ?? false }

        /// The host of the URL the key names (for a processed variant, of its original's URL);
        /// nil for a key that is not a URL with a host, such as a ``ImageRequest/cacheKeyOverride``.
        public var host: String? {
            let original = key.rawValue.utf8.split(separator: CacheKey.separator, maxSplits: 1).first
            return original.flatMap { URL(string: String(decoding: $0, as: UTF8.self))?.host }
        }
    }

    /// Every entry file, split into those whose header reads and those that are damaged.
    public struct Inventory: Sendable, Hashable {
        /// Entries with an intact header, in no particular order.
        public var entries: [EntrySummary]
        /// Names of entry files whose header is missing, damaged or disagrees with the file's size.
        public var damagedFileNames: [String]
    }

    /// What ``verifyEntries()`` found.
    public struct Verification: Sendable, Hashable {
        /// A damaged entry that was deleted.
        public struct Removal: Sendable, Hashable {
            /// The entry file's name inside `entries/`.
            public var fileName: String
            /// The key its header names, when the header was readable.
            public var key: CacheKey?
            /// The file's size in bytes.
            public var fileSize: Int
            /// Why it was deleted.
            public var reason: String
        }

        /// Entry files examined.
        public var checked: Int
        /// Entries that passed every check.
        public var intact: Int
        /// Entries left alone because this process may not judge them (larger than its
        /// ``Configuration/maximumEntrySize``, or unreadable for an I/O error).
        public var skipped: Int
        /// The damaged entries deleted.
        public var removed: [Removal]
    }

    /// Lists every entry from its header; opens each file once and reads only its header.
    /// Changes nothing: recency is untouched and damaged files are reported, not deleted.
    public func inventory() -> Inventory {
        var entries: [EntrySummary] = []
        var damaged: [String] = []
        for name in entryFileNames() {
            switch summary(ofEntry: name) {
            case .some(.some(let summary)): entries.append(summary)
            case .some(.none): damaged.append(name.description)
            case .none: break  // vanished since it was listed
            }
        }
        return Inventory(entries: entries, damagedFileNames: damaged)
    }

    /// Reads every entry in full, checks it as a read does (header, key, length, payload checksum)
    /// and deletes those that fail. Expired entries are kept (``sweep()`` removes them), and each
    /// intact entry keeps its recency: verifying is not a use.
    public func verifyEntries() -> Verification {
        var result = Verification(checked: 0, intact: 0, skipped: 0, removed: [])
        for name in entryFileNames() {
            guard let status = FileSystem.status(atPath: path(ofEntry: name)), status.isRegularFile else { continue }
            result.checked += 1
            guard case .some(.some(let summary)) = summary(ofEntry: name) else {
                FileSystem.remove(path(ofEntry: name), ifInode: status.inode)
                result.removed.append(
                    .init(fileName: name.description, key: nil, fileSize: status.size, reason: "damaged or unreadable header"))
                continue
            }
            guard Self.entryName(for: summary.key) == name else {
                FileSystem.remove(path(ofEntry: name), ifInode: status.inode)
                result.removed.append(
                    .init(
                        fileName: name.description, key: summary.key, fileSize: status.size,
                        reason: "the file name does not match its key"))
                continue
            }
            // Read and checked like a hit, but not recorded as one: verifying is not a use.
            if readEntry(named: name, key: summary.key, at: now(), allowExpired: true) != nil {
                result.intact += 1
                restoreModified(ofEntry: name, inode: status.inode, to: status.modified)
            } else if let after = FileSystem.status(atPath: path(ofEntry: name)), after.inode == status.inode {
                result.skipped += 1
            } else {
                result.removed.append(
                    .init(
                        fileName: name.description, key: summary.key, fileSize: status.size,
                        reason: "payload damaged (length or checksum)"))
            }
        }
        return result
    }

    /// Deletes least recently used entries until entry files total at most `limit` bytes; what a
    /// store does when the cache grows past ``Configuration/sizeLimit``, on demand.
    ///
    /// - Returns: the number of entries deleted.
    @discardableResult
    public func trim(toSize limit: Int) -> Int {
        var entries = inventory().entries.sorted { $0.lastAccess < $1.lastAccess }
        var total = entries.reduce(0) { $0 + $1.fileSize }
        var removed = 0
        while total > limit, !entries.isEmpty {
            let oldest = entries.removeFirst()
            remove(forKey: oldest.key)
            total -= oldest.fileSize
            removed += 1
        }
        return removed
    }

    // MARK: - Reading headers

    /// The names in `entries/` that are entry files' (64 lower-case hex digits), in order.
    private func entryFileNames() -> [EntryName] {
        var names: [EntryName] = []
        FileSystem.forEachName(inDirectory: directory.standardizedFileURL.path + "/entries") { name, _ in
            if let name = EntryName(fileName: name) { names.append(name) }
        }
        return names.sorted()
    }

    /// The summary of the entry file `name`: nil when it cannot be opened (it vanished), `.some(nil)`
    /// when its header is damaged or disagrees with the file's size.
    private func summary(ofEntry name: EntryName) -> EntrySummary?? {
        let path = path(ofEntry: name)
        let fd = calls.open(path, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let status = FileSystem.status(ofFile: fd) else { return nil }
        var wanted = min(status.size, 4096)
        while true {
            let decoded = withUnsafeTemporaryAllocation(byteCount: max(wanted, 1), alignment: 8) {
                buffer -> EntryHeader.Decoded in
                let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted])
                guard FileSystem.read(fd, into: slice, at: 0, calls: calls) else { return .invalid }
                return EntryHeader.decode(UnsafeRawBufferPointer(slice))
            }
            switch decoded {
            case .header(let header, let length):
                guard status.size - length == header.payloadLength else { return .some(nil) }
                return EntrySummary(
                    key: CacheKey(header.key), fileName: name.description, fileSize: status.size,
                    payloadSize: header.payloadLength, createdAt: header.createdAt, expiresAt: header.expiresAt,
                    lastAccess: Date(timeIntervalSince1970: status.modified))
            case .needsBytes(let length) where length <= status.size && length > wanted:
                wanted = length
            case .needsBytes, .invalid:
                return .some(nil)
            }
        }
    }

    /// Puts back the modification time a verifying read moved, if the file is still the same one.
    private func restoreModified(ofEntry name: EntryName, inode: UInt64, to time: TimeInterval) {
        let path = path(ofEntry: name)
        guard let current = FileSystem.status(atPath: path), current.inode == inode else { return }
        let seconds = time.rounded(.down)
        let stamp = timespec(tv_sec: Int(seconds), tv_nsec: Int((time - seconds) * 1e9))
        _ = utimensat(AT_FDCWD, path, [stamp, stamp], AT_SYMLINK_NOFOLLOW)
    }
}
