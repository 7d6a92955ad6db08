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
    /// a miss; a damaged, foreign or (unless allowed) expired file is deleted.
    func readEntry(
        named name: String, key: CacheKey, at time: Date, allowExpired: Bool
    ) -> (Entry, FileSystem.Status)? {
        let path = path(ofEntry: name)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        entryFilesOpened.add(1, ordering: .relaxed)
        guard let status = FileSystem.status(ofFile: fd) else { return nil }
        guard let (header, headerLength) = readHeader(fd, fileSize: status.size), header.key == key.rawValue,
            header.payloadLength == status.size - headerLength
        else {
            FileSystem.remove(path, ifInode: status.inode)
            return nil
        }
        let isExpired = header.expiresAt.map { $0 <= time } ?? false
        if isExpired && !allowExpired {
            FileSystem.remove(path, ifInode: status.inode)
            return nil
        }
        guard let payload = readPayload(fd, at: headerLength, count: header.payloadLength),
            Checksum.crc32(payload) == header.payloadChecksum
        else {
            FileSystem.remove(path, ifInode: status.inode)
            return nil
        }
        FileSystem.setModified(fd, to: time.timeIntervalSince1970)
        let entry = Entry(
            key: key, data: payload, metadata: header.metadata, createdAt: header.createdAt,
            expiresAt: header.expiresAt, isExpired: isExpired)
        return (entry, status)
    }

    /// Reads and decodes the header at the start of an open entry file.
    private func readHeader(_ fd: Int32, fileSize: Int) -> (EntryHeader, length: Int)? {
        var wanted = min(fileSize, 4096)
        while true {
            let decoded = withUnsafeTemporaryAllocation(byteCount: wanted, alignment: 8) { buffer -> EntryHeader.Decoded in
                guard FileSystem.read(fd, into: buffer, at: 0) else { return .invalid }
                return EntryHeader.decode(UnsafeRawBufferPointer(buffer))
            }
            switch decoded {
            case .header(let header, let length): return (header, length)
            case .needsBytes(let length) where length <= fileSize && length > wanted: wanted = length
            case .needsBytes, .invalid: return nil
            }
        }
    }

    /// Reads `count` payload bytes into a fresh buffer, without zero-filling it first.
    private func readPayload(_ fd: Int32, at offset: Int, count: Int) -> Data? {
        guard count > 0 else { return Data() }
        guard let memory = malloc(count) else { return nil }
        guard FileSystem.read(fd, into: UnsafeMutableRawBufferPointer(start: memory, count: count), at: offset) else {
            free(memory)
            return nil
        }
        return Data(bytesNoCopy: memory, count: count, deallocator: .free)
    }

    /// Deletes the entry file `name` if it has expired or its header is damaged.
    func removeIfExpired(named name: String, at time: Date) -> Bool {
        let path = path(ofEntry: name)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        entryFilesOpened.add(1, ordering: .relaxed)
        guard let status = FileSystem.status(ofFile: fd) else { return false }
        if let (header, length) = readHeader(fd, fileSize: status.size), header.payloadLength == status.size - length,
            header.expiresAt.map({ $0 > time }) ?? true
        {
            return false
        }
        FileSystem.remove(path, ifInode: status.inode)
        return true
    }
}
