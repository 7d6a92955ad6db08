import Foundation

extension DiskCache {
    /// Why a disk-cache operation failed. Only creating the cache and storing throw; a read that
    /// fails for any reason is a miss.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The cache directory, or one of its folders, could not be created. `code` is the `errno`.
        case cannotCreateDirectory(path: String, code: Int32)
        /// An entry file could not be written or moved into place. `code` is the `errno`.
        case cannotWriteEntry(path: String, code: Int32)
        /// The payload is larger than ``Configuration/maximumEntrySize``; nothing was written.
        case entryTooLarge(CacheKey, size: Int, limit: Int)

        /// What went wrong with the cache directory, and what to do.
        public var description: String {
            switch self {
            case .cannotCreateDirectory(let path, let code):
                "The disk cache could not create the folder \(path): \(Self.reason(code)). \(Self.advice(code))"
            case .cannotWriteEntry(let path, let code):
                "The disk cache could not write \(path): \(Self.reason(code)). \(Self.advice(code))"
            case .entryTooLarge(let key, let size, let limit):
                "The disk cache did not store \(key): its \(size) bytes exceed the maximumEntrySize of \(limit) bytes. "
                    + "Raise DiskCache.Configuration.maximumEntrySize to cache such images."
            }
        }

        private static func reason(_ code: Int32) -> String {
            "\(FileSystem.describe(code)) (errno \(code))"
        }

        private static func advice(_ code: Int32) -> String {
            switch code {
            case ENOSPC, EDQUOT:
                "Free disk space or lower DiskCache.Configuration.sizeLimit; images still load, uncached."
            case EACCES, EPERM:
                "Give this process write permission on the cache directory, or choose another directory."
            case EROFS:
                "The file system is read-only; choose a cache directory on a writable volume."
            case ENOTDIR, EEXIST:
                "A file stands where the cache expects a folder; remove it or choose another directory."
            default:
                "Check that the cache directory exists and is writable."
            }
        }
    }
}
