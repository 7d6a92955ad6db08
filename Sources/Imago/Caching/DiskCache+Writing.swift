import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing entries: each to a temporary file, renamed into place, so a reader in any process sees
/// a whole entry or none.
extension DiskCache {
    /// When a stored entry stops being fresh.
    enum Expiry: Sendable, Equatable {
        /// This long from now; nil uses ``Configuration/entryLifetime``.
        case lifetime(Duration?)
        /// At this date (an entry stored alongside another, expiring with it); nil is never.
        case date(Date?)
    }

    /// Stores `data` under `key` with the given expiry; see ``store(_:forKey:metadata:lifetime:)``.
    func store(_ data: Data, forKey key: CacheKey, metadata: [String: String], expiry: Expiry) throws(Error) {
        guard data.count <= configuration.maximumEntrySize else {
            throw Error.entryTooLarge(key, size: data.count, limit: configuration.maximumEntrySize)
        }
        let time = now()
        let header = EntryHeader(
            key: key.rawValue, payloadLength: data.count, payloadChecksum: EntryHeader.payloadChecksum(data), createdAt: time,
            expiresAt: expiresAt(expiry, from: time),
            metadata: metadata
        ).encoded()
        let name = Self.entryName(for: key)
        let written: FileSystem.Status
        do throws(Error) {
            written = try writeEntry(named: name, header: header, payload: data, at: time)
        } catch {
            logOnce(error)
            throw error
        }
        loadIndexIfNeeded()
        let file = Index.File(size: written.size, lastAccess: time.timeIntervalSince1970, inode: written.inode)
        let limit = configuration.sizeLimit
        let needsRescan = index.withLock { index in
            index.apply(.present(name, file))
            index.recordWrite(written.size)
            return index.needsRescan(limit: limit)
        }
        guard needsRescan else { return }
        // Other processes may have written (or evicted) meanwhile: evict from the true picture.
        rescanIndex()
        let victims = index.withLock { $0.evictions(limit: limit, target: limit / 10 * 9) }
        for victim in victims { FileSystem.remove(path(ofEntry: victim.name), ifInode: victim.inode) }
    }

    private func expiresAt(_ expiry: Expiry, from time: Date) -> Date? {
        switch expiry {
        case .lifetime(let lifetime):
            (lifetime ?? configuration.entryLifetime).map { time.addingTimeInterval(Self.seconds($0)) }
        case .date(let date):
            date
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }

    func createDirectories() throws(Error) {
        for path in [entriesPath, temporaryPath] {
            do throws(FileSystem.Failure) {
                try FileSystem.makeDirectory(path, calls: calls)
            } catch {
                throw Error.cannotCreateDirectory(path: path, code: error.code)
            }
        }
    }

    /// Writes the entry to a temporary file and renames it into place. If the cache's folders have
    /// been deleted meanwhile, recreates them, forgets the index, and tries once more.
    private func writeEntry(
        named name: EntryName, header: [UInt8], payload: Data, at time: Date
    ) throws(Error) -> FileSystem.Status {
        let temporary = temporaryPath + "/" + name.description + "." + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let destination = path(ofEntry: name)
        var attempt = 1
        while true {
            let status: FileSystem.Status
            do throws(FileSystem.Failure) {
                status = try FileSystem.createFile(
                    atPath: temporary, header: header, payload: payload, time: time.timeIntervalSince1970, calls: calls)
            } catch {
                guard error.code == ENOENT, attempt == 1 else {
                    throw Error.cannotWriteEntry(path: temporary, code: error.code)
                }
                try recreateDirectories()
                attempt += 1
                continue
            }
            if calls.rename(temporary, destination) == 0 { return status }
            let code = errno
            unlink(temporary)
            guard code == ENOENT, attempt == 1 else { throw Error.cannotWriteEntry(path: destination, code: code) }
            try recreateDirectories()
            attempt += 1
        }
    }

    private func recreateDirectories() throws(Error) {
        configuration.logger.debug("The disk cache's folders in \(directory.path) were deleted; recreating them.")
        try createDirectories()
        index.withLock { $0.invalidate() }
    }
}
