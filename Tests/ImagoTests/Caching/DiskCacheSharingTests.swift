import Foundation
import Testing

@testable import Imago

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Several processes on one cache directory, played by several `DiskCache` instances (each keeps
/// its own index, exactly as a separate process would).
@Suite("DiskCache shared by several processes")
struct DiskCacheSharingTests {
    /// Sets a file's modification time to `seconds` since 1970.
    private func setModified(_ path: String, to seconds: TimeInterval) {
        var times = [timespec(tv_sec: Int(seconds), tv_nsec: 0), timespec(tv_sec: Int(seconds), tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test("Temporary files of a killed writer are removed at open when older than a minute, and counted until then")
    func orphanedTemporaryFiles() throws {
        try withTemporaryDirectory { directory in
            let clock = TestWallClock()
            _ = try DiskCache(directory: directory, now: clock.reading)
            let tmp = directory.appendingPathComponent("tmp")
            let old = tmp.appendingPathComponent("orphan-old").path
            let recent = tmp.appendingPathComponent("orphan-recent").path
            #expect(FileManager.default.createFile(atPath: old, contents: sampleBytes(3_000)))
            #expect(FileManager.default.createFile(atPath: recent, contents: sampleBytes(2_000)))
            setModified(old, to: clock.now.timeIntervalSince1970 - 61)
            setModified(recent, to: clock.now.timeIntervalSince1970 - 30)

            let cache = try DiskCache(directory: directory, now: clock.reading)
            #expect(fileNames(in: tmp) == ["orphan-recent"])
            #expect(cache.statistics().totalBytes == 2_000)
            try cache.store(sampleBytes(100), forKey: "k")
            #expect(cache.statistics().totalBytes > 2_100)

            clock.advance(by: 31)
            let reopened = try DiskCache(directory: directory, now: clock.reading)
            #expect(fileNames(in: tmp).isEmpty)
            #expect(reopened.statistics().totalBytes < 2_000)
        }
    }

    @Test("A process with a smaller maximumEntrySize skips larger entries instead of deleting them")
    func smallerMaximumEntrySize() throws {
        try withTemporaryDirectory { directory in
            let large = try DiskCache(directory: directory)
            let small = try DiskCache(directory: directory, configuration: .init(maximumEntrySize: 1_000))
            let payload = sampleBytes(5_000)
            try large.store(payload, forKey: "big")
            #expect(small.data(forKey: "big") == nil)
            #expect(small.entry(forKey: "big", allowExpired: true) == nil)
            small.sweep()
            #expect(large.data(forKey: "big") == payload)
        }
    }

    @Test("Two processes storing into one directory keep it near one sizeLimit, not two")
    func sharedSizeLimit() throws {
        try withTemporaryDirectory { directory in
            let limit = 200_000
            let configuration = DiskCache.Configuration(sizeLimit: limit)
            let first = try DiskCache(directory: directory, configuration: configuration)
            let second = try DiskCache(directory: directory, configuration: configuration)
            _ = first.statistics()  // both scan now, before either writes
            _ = second.statistics()
            for index in 0..<80 {
                let cache = index.isMultiple(of: 2) ? first : second
                try cache.store(sampleBytes(10_000, seed: UInt8(index % 251)), forKey: CacheKey("k\(index)"))
            }
            let entries = directory.appendingPathComponent("entries")
            let total = fileNames(in: entries).reduce(0) { total, name in
                let size = (try? FileManager.default.attributesOfItem(atPath: entries.appendingPathComponent(name).path)[.size])
                return total + ((size as? Int) ?? 0)
            }
            // Each process may overshoot by the bytes it wrote since it last looked (a tenth of
            // the limit) plus one entry.
            #expect(total <= limit + 2 * (limit / 10 + 10_100))
            #expect(total > limit / 2)
        }
    }
}

@Suite("DiskCache privacy")
struct DiskCachePrivacyTests {
    private func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    @Test("The folders the cache creates are 0700 and its entry files 0600")
    func permissions() throws {
        try withTemporaryDirectory { parent in
            let directory = parent.appendingPathComponent("new/cache")
            let cache = try DiskCache(directory: directory)
            try cache.store(sampleBytes(100), forKey: "secret")
            #expect(mode(directory.path) == 0o700)
            #expect(mode(directory.appendingPathComponent("entries").path) == 0o700)
            #expect(mode(directory.appendingPathComponent("tmp").path) == 0o700)
            let name = DiskCache.entryName(for: "secret")
            #expect(mode(directory.appendingPathComponent("entries/\(name)").path) == 0o600)
        }
    }
}
