import ArgumentParser
import Foundation
import Imago

/// `--cache-dir DIR`, shared by the commands that use the disk cache.
struct CacheDirectoryOption: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: "Disk cache directory (default: the user cache directory's imago folder).")
    var path: String?

    /// The directory asked for, or the platform's default.
    var url: URL { path.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? DiskCache.defaultDirectory() }

    /// Opens the disk cache there; a failure is a usage error that names the directory.
    func open() throws -> DiskCache {
        do {
            return try DiskCache(directory: url)
        } catch {
            throw ValidationError("Cannot use the disk cache at \(url.path): \(error)")
        }
    }
}
