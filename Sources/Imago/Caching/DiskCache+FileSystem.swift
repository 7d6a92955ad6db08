import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension DiskCache {
    /// The POSIX calls behind ``DiskCache``. Plain system calls are used on purpose: `Data.write` and
    /// `FileManager.createFile` fsync every file on Linux (several times fewer writes a second;
    /// Benchmarks/README.md), and `contentsOfDirectory` + `resourceValues` is far slower than
    /// `readdir` + `stat`.
    enum FileSystem {
        /// A file's identity and the fields the cache uses.
        struct Status {
            var inode: UInt64
            var size: Int
            /// The `S_IFMT` bits of the mode: regular file, directory, link…
            var kind: mode_t
            /// Modification time, seconds since 1970.
            var modified: TimeInterval

            init(_ info: stat) {
                inode = UInt64(info.st_ino)
                size = Int(info.st_size)
                kind = info.st_mode & S_IFMT
                #if canImport(Darwin)
                    modified = TimeInterval(info.st_mtimespec.tv_sec) + TimeInterval(info.st_mtimespec.tv_nsec) / 1e9
                #else
                    modified = TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9
                #endif
            }

            var isRegularFile: Bool { kind == S_IFREG }
            var isDirectory: Bool { kind == S_IFDIR }
        }

        /// An `errno` value from a failed call.
        struct Failure: Swift.Error {
            var code: Int32
        }

        /// The system calls that can fail for reasons outside the cache (disk full, I/O error,
        /// permissions, a folder deleted under it): the seam through which tests inject those
        /// faults. Each returns what the POSIX call returns and leaves the cause in `errno`.
        /// Production uses ``system``: one indirect call per system call, nothing measurable.
        struct Calls: Sendable {
            var open: @Sendable (_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32
            var write: @Sendable (_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int
            var read: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t) -> Int
            var rename: @Sendable (_ source: String, _ destination: String) -> Int32
            var makeDirectory: @Sendable (_ path: String, _ mode: mode_t) -> Int32

            /// The real calls.
            static let system = Calls(
                open: { path, flags, mode in systemOpen(path, flags, mode) },
                write: { fd, bytes, count in systemWrite(fd, bytes, count) },
                read: { fd, buffer, count, offset in pread(fd, buffer, count, offset) },
                rename: { source, destination in systemRename(source, destination) },
                makeDirectory: { path, mode in mkdir(path, mode) })
        }

        static func status(ofFile fd: Int32) -> Status? {
            var info = stat()
            return fstat(fd, &info) == 0 ? Status(info) : nil
        }

        /// The status of `path` itself (a symbolic link is not followed).
        static func status(atPath path: String) -> Status? {
            var info = stat()
            return lstat(path, &info) == 0 ? Status(info) : nil
        }

        /// Creates `path` and any missing parents, readable by this user only (0700: cached images
        /// can be private); an existing directory is fine and keeps its mode.
        static func makeDirectory(_ path: String, calls: Calls) throws(Failure) {
            if calls.makeDirectory(path, 0o700) == 0 { return }
            let code = errno
            switch code {
            case EEXIST:
                guard status(atPath: path).map({ $0.isDirectory }) ?? false else { throw Failure(code: ENOTDIR) }
            case ENOENT:
                let parent = (path as NSString).deletingLastPathComponent
                guard !parent.isEmpty, parent != path else { throw Failure(code: code) }
                try makeDirectory(parent, calls: calls)
                if calls.makeDirectory(path, 0o700) != 0, errno != EEXIST { throw Failure(code: errno) }
            default:
                throw Failure(code: code)
            }
        }

        /// Writes `header` then `payload` to a new file at `path` (which must not exist), makes its
        /// modification time `time` (stamping it only when the file system's own time differs by
        /// more than ``timeStampTolerance``: with a real clock it never does, and the metadata
        /// write is saved), and closes it. No fsync: the caller renames the
        /// finished file into place, so a crash leaves at worst a stray temporary file, never a torn
        /// entry under a real name. On failure the partial file is removed.
        static func createFile(
            atPath path: String, header: [UInt8], payload: Data, time: TimeInterval, calls: Calls
        ) throws(Failure) -> Status {
            let fd = calls.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw Failure(code: errno) }
            var failure: Int32 = 0
            header.withUnsafeBytes { failure = writeAll(fd, $0, calls: calls) }
            if failure == 0 { payload.withUnsafeBytes { failure = writeAll(fd, $0, calls: calls) } }
            var status = failure == 0 ? status(ofFile: fd) : nil
            if status == nil, failure == 0 { failure = errno }
            if var stamped = status, abs(stamped.modified - time) > timeStampTolerance {
                setModified(fd, to: time)
                stamped.modified = time
                status = stamped
            }
            if close(fd) != 0, failure == 0 { failure = errno }
            guard failure == 0, let status else {
                unlink(path)
                throw Failure(code: failure)
            }
            return status
        }

        /// How far a new file's own modification time may be from the cache's clock before the
        /// cache stamps it: recency is kept to the second, and a file system's clock is the wall
        /// clock (tests inject clocks far from it).
        static let timeStampTolerance: TimeInterval = 1

        /// Reads exactly `buffer.count` bytes at `offset`; false on an error or a short file.
        /// A read that fails (not a short file) leaves its cause in `errno`; a short file sets 0.
        static func read(
            _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int, calls: Calls
        ) -> Bool {
            guard let base = buffer.baseAddress else { return true }
            var done = 0
            while done < buffer.count {
                let count = calls.read(fd, base + done, buffer.count - done, off_t(offset + done))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    if count == 0 { errno = 0 }
                    return false
                }
                done += count
            }
            return true
        }

        /// Sets the file's access and modification times to `time` (seconds since 1970). The cache
        /// uses the modification time as the entry's last use.
        static func setModified(_ fd: Int32, to time: TimeInterval) {
            let seconds = time.rounded(.down)
            let stamp = timespec(tv_sec: Int(seconds), tv_nsec: Int((time - seconds) * 1e9))
            _ = futimens(fd, [stamp, stamp])
        }

        /// Sets the access and modification times of the file at `path` (a symbolic link itself is
        /// not followed) to `time`, seconds since 1970.
        static func setModified(atPath path: String, to time: TimeInterval) {
            let seconds = time.rounded(.down)
            let stamp = timespec(tv_sec: Int(seconds), tv_nsec: Int((time - seconds) * 1e9))
            _ = utimensat(AT_FDCWD, path, [stamp, stamp], AT_SYMLINK_NOFOLLOW)
        }

        /// Deletes `path` only if it is still the file with this inode, so an entry that another
        /// thread or process has just renamed over it is left alone.
        static func remove(_ path: String, ifInode inode: UInt64) {
            guard let current = status(atPath: path), current.inode == inode else { return }
            unlink(path)
        }

        /// Calls `body` with the name of every directory entry in `path` except `.` and `..`, and the
        /// descriptor of the open directory (for `fstatat`). A missing directory has no entries.
        static func forEachName(
            inDirectory path: String, _ body: (_ name: UnsafePointer<CChar>, _ directory: Int32) -> Void
        ) {
            guard let directory = opendir(path) else { return }
            defer { closedir(directory) }
            let fd = dirfd(directory)
            let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            while let entry = readdir(directory) {
                let name = (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self)
                if name[0] == 0x2E, name[1] == 0 || (name[1] == 0x2E && name[2] == 0) { continue }
                body(name, fd)
            }
        }

        /// The status of `name` in the open directory `directory` (links are not followed).
        static func status(of name: UnsafePointer<CChar>, inDirectory directory: Int32) -> Status? {
            var info = stat()
            return fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? Status(info) : nil
        }

        /// The system's description of an `errno` value, e.g. "No space left on device".
        static func describe(_ code: Int32) -> String {
            String(cString: strerror(code))
        }

        private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, calls: Calls) -> Int32 {
            guard let base = bytes.baseAddress else { return 0 }
            var done = 0
            while done < bytes.count {
                let count = calls.write(fd, base + done, bytes.count - done)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return count == 0 ? EIO : errno }
                done += count
            }
            return 0
        }
    }
}

// `open`, `write` and `rename` of the C library, at file scope, where the members of the same names
// of `FileSystem.Calls` and `FileSystem` do not hide them.
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }
private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
