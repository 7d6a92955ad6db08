import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading entry files: every check that stands between a file and a returned entry.
extension DiskCache {
    /// Reads and verifies the entry file `name`. Returns the entry and the file's status, or nil for
    /// a miss; a damaged, foreign, oversized or (unless allowed) expired file is deleted.
    ///
    /// The whole file is read with one `pread` into one buffer, and the returned `Data` is a view of
    /// its payload part: no second read, no copy, no zero-filling.
    func readEntry(
        named name: EntryName, key: CacheKey, at time: Date, allowExpired: Bool
    ) -> (Entry, FileSystem.Status)? {
        withOpenEntry(named: name) { fd, status in
            readEntry(fd, status: status, name: name, key: key, at: time, allowExpired: allowExpired)
        }
    }

    private func readEntry(
        _ fd: Int32, status: FileSystem.Status, name: EntryName, key: CacheKey, at time: Date, allowExpired: Bool
    ) -> (Entry, FileSystem.Status)? {
        let discard = { () -> (Entry, FileSystem.Status)? in
            FileSystem.remove(self.path(ofEntry: name), ifInode: status.inode)
            return nil
        }
        let size = status.size
        // Larger than this process accepts: another process with a larger maximumEntrySize may
        // have stored it, so it is skipped, not deleted.
        guard size <= configuration.maximumEntrySize + EntryHeader.maximumLength else { return nil }
        guard let base = malloc(max(size, 1)) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: base, count: size)
        var keepsBuffer = false
        defer { if !keepsBuffer { free(base) } }
        guard FileSystem.read(fd, into: UnsafeMutableRawBufferPointer(mutating: bytes), at: 0, calls: calls) else {
            let code = errno
            guard code != 0 else { return discard() }  // shorter than its size: replaced meanwhile
            logFault(FaultCause(operation: "read", code: code), "The disk cache could not read \(path(ofEntry: name)): \(FileSystem.describe(code)).")
            return nil  // an I/O error says nothing about the entry: keep it
        }
        guard case .header(let header, let headerLength) = EntryHeader.decode(bytes, expectedKey: key.rawValue) else { return discard() }
        // Stored by a process that accepts larger entries: skip it, leave it for that process.
        guard header.payloadLength <= configuration.maximumEntrySize else { return nil }
        guard
            header.key == key.rawValue, header.payloadLength == size - headerLength
        else { return discard() }
        let isExpired = header.expiresAt.map { $0 <= time } ?? false
        guard !isExpired || allowExpired else { return discard() }
        let payloadBytes = UnsafeRawBufferPointer(rebasing: bytes[headerLength...])
        guard EntryHeader.checksum(payloadBytes, version: header.version) == header.payloadChecksum else {
            return discard()
        }
        keepsBuffer = true
        // The payload's Data frees the whole buffer. Where the buffer starts is written in the
        // header's last word (a header is at least EntryHeader.fixedLength bytes, and it is decoded
        // and checked already), so the deallocator captures nothing and costs no allocation.
        (base + headerLength - Self.bufferOffsetSize).storeBytes(of: headerLength, as: Int.self)
        let payload = Data(
            bytesNoCopy: base + headerLength, count: header.payloadLength, deallocator: .custom(Self.freeEntryBuffer))
        let entry = Entry(
            key: key, data: payload, metadata: header.metadata, createdAt: header.createdAt,
            expiresAt: header.expiresAt, isExpired: isExpired)
        return (entry, status)
    }

    /// The bytes before a payload that hold its offset from the start of its buffer.
    private static let bufferOffsetSize = MemoryLayout<Int>.size

    /// Frees the buffer a payload read by ``readEntry(named:key:at:allowExpired:)`` starts inside.
    private static func freeEntryBuffer(_ payload: UnsafeMutableRawPointer, _: Int) {
        let offset = (payload - bufferOffsetSize).loadUnaligned(as: Int.self)
        free(payload - offset)
    }

    /// Reads and decodes the header at the start of an open entry file.
    private func readHeader(_ fd: Int32, fileSize: Int) -> (EntryHeader, length: Int)? {
        var wanted = min(fileSize, 512)  // a header is rarely longer; a longer one is read again whole
        while true {
            let decoded = withUnsafeTemporaryAllocation(byteCount: wanted, alignment: 8) {
                buffer -> EntryHeader.Decoded in
                guard FileSystem.read(fd, into: buffer, at: 0, calls: calls) else { return .invalid }
                return EntryHeader.decode(UnsafeRawBufferPointer(buffer))
            }
            switch decoded {
            case .header(let header, let length): return (header, length)
            case .needsBytes(let length) where length <= fileSize && length > wanted: wanted = length
            case .needsBytes, .invalid: return nil
            }
        }
    }

    /// Deletes the entry file `name` if it has expired or its header is damaged.
    func removeIfExpired(named name: EntryName, at time: Date) -> Bool {
        withOpenEntry(named: name) { fd, status in
            if let (header, length) = readHeader(fd, fileSize: status.size),
                header.payloadLength == status.size - length, header.expiresAt.map({ $0 > time }) ?? true
            {
                return false
            }
            FileSystem.remove(path(ofEntry: name), ifInode: status.inode)
            return true
        } ?? false
    }

    /// Linux's `O_NOATIME`: the cache keeps its own recency, so a read need not dirty the file's
    /// inode to update its access time (relatime still does on the first read after each write).
    /// It is allowed only on files this user owns; the open falls back without it otherwise.
    #if os(Linux) && (arch(x86_64) || arch(arm64))
        private static let noAccessTime: Int32 = 0o1000000  // O_NOATIME; Glibc hides it behind _GNU_SOURCE
    #else
        private static let noAccessTime: Int32 = 0
    #endif

    /// Opens the entry file `name` for reading and calls `body` with its descriptor and status;
    /// nil when the file cannot be opened (most often: it does not exist).
    private func withOpenEntry<Result>(
        named name: EntryName, _ body: (Int32, FileSystem.Status) -> Result?
    ) -> Result? {
        let fd = withPath(ofEntry: name) { path in
            let fd = calls.open(path, O_RDONLY | O_CLOEXEC | Self.noAccessTime, 0)
            guard fd < 0, errno == EPERM, Self.noAccessTime != 0 else { return fd }
            return calls.open(path, O_RDONLY | O_CLOEXEC, 0)  // a file of another user: no O_NOATIME
        }
        guard fd >= 0 else {
            let code = errno
            if code != ENOENT {
                logFault(
                    FaultCause(operation: "open", code: code),
                    "The disk cache could not open \(path(ofEntry: name)): \(FileSystem.describe(code)).")
            }
            return nil
        }
        defer { close(fd) }
        entryFilesOpened.add(1, ordering: .relaxed)
        guard let status = FileSystem.status(ofFile: fd) else { return nil }
        return body(fd, status)
    }
}
