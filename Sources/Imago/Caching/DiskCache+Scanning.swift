import Foundation

/// The index's picture of the directory: scanned with `readdir` + `stat` when first needed, and
/// again before an eviction.
extension DiskCache {
    /// Scans the entries folder once, the first time sizes are needed.
    func loadIndexIfNeeded() {
        if index.withLock({ $0.isLoaded }) { return }
        indexLoader.withLock { scans in
            guard index.withLock({ $0.beginLoading() }) else { return }
            scans += 1
            persistRecency()  // hits before the index loaded live only in the journal
            let scanned = scanEntries()
            index.withLock { $0.finishLoading(scanned) }
        }
    }

    /// Scans the directory again (what other processes wrote or evicted), keeping the changes
    /// this process makes meanwhile.
    func rescanIndex() {
        indexLoader.withLock { scans in
            scans += 1
            index.withLock { index in
                index.invalidate()
                _ = index.beginLoading()
            }
            persistRecency()  // the scan replaces the in-memory recency with the files' times
            let scanned = scanEntries()
            index.withLock { $0.finishLoading(scanned) }
        }
    }

    /// Every entry file's size and modification time, and the bytes of temporary files, from
    /// `readdir` + `fstatat`; opens no file.
    private func scanEntries() -> Index.Scan {
        var files: [EntryName: Index.File] = [:]
        FileSystem.forEachName(inDirectory: entriesPath) { namePointer, directory in
            guard let name = EntryName(fileName: namePointer), let status = FileSystem.status(of: namePointer, inDirectory: directory),
                status.isRegularFile
            else { return }
            files[name] = Index.File(size: status.size, lastAccess: status.modified, inode: status.inode)
        }
        var temporaryBytes = 0
        FileSystem.forEachName(inDirectory: temporaryPath) { name, directory in
            guard let status = FileSystem.status(of: name, inDirectory: directory), status.isRegularFile else { return }
            temporaryBytes += status.size
        }
        return Index.Scan(files: files, temporaryBytes: temporaryBytes)
    }
}
