import Foundation
import Testing

@testable import Imago

@Suite("DiskCache")
struct DiskCacheTests {
    @Test func roundTripWithMetadata() throws {
        try withTemporaryDirectory { directory in
            let clock = TestWallClock()
            let cache = try DiskCache(directory: directory, now: clock.reading)
            let data = sampleBytes(50_000)
            let metadata = ["ETag": "\"abc\"", "Last-Modified": "Tue, 15 Nov 1994 12:45:26 GMT", "note": "éü✓"]
            try cache.store(data, forKey: "https://example.com/a.jpg", metadata: metadata)
            #expect(cache.data(forKey: "https://example.com/a.jpg") == data)
            let entry = try #require(cache.entry(forKey: "https://example.com/a.jpg"))
            #expect(entry.metadata == metadata)
            #expect(entry.createdAt == clock.now)
            #expect(entry.expiresAt == nil && !entry.isExpired)
            #expect(cache.data(forKey: "https://example.com/b.jpg") == nil)
            #expect(cache.contains(forKey: "https://example.com/a.jpg"))
            #expect(!cache.contains(forKey: "https://example.com/b.jpg"))
            let statistics = cache.statistics()
            #expect(statistics.entryCount == 1 && statistics.hits == 2 && statistics.misses == 1)
            #expect(statistics.totalBytes > 50_000)
        }
    }

    @Test func emptyPayloadAndReplacement() throws {
        try withTemporaryDirectory { directory in
            let cache = try DiskCache(directory: directory)
            try cache.store(Data(), forKey: "k")
            #expect(cache.data(forKey: "k") == Data())
            try cache.store(sampleBytes(10), forKey: "k")
            #expect(cache.data(forKey: "k") == sampleBytes(10))
            #expect(cache.statistics().entryCount == 1)
            #expect(fileNames(in: directory.appendingPathComponent("tmp")).isEmpty)
        }
    }

    /// Files are 54-byte headers (2-byte keys) plus 1,000-byte payloads; the limit holds three and
    /// a half, so a fourth store evicts exactly one: the least recently *read*.
    @Test func sizeLimitEvictsTheLeastRecentlyUsedEntry() throws {
        try withTemporaryDirectory { directory in
            let clock = TestWallClock()
            let fileSize = 54 + 1_000
            let configuration = DiskCache.Configuration(sizeLimit: fileSize * 7 / 2)
            let cache = try DiskCache(directory: directory, configuration: configuration, now: clock.reading)
            for key in ["k1", "k2", "k3"] {
                clock.advance(by: 1)
                try cache.store(sampleBytes(1_000), forKey: CacheKey(key))
            }
            #expect(cache.statistics().totalBytes == 3 * fileSize)
            clock.advance(by: 1)
            #expect(cache.data(forKey: "k1") != nil)
            clock.advance(by: 1)
            try cache.store(sampleBytes(1_000), forKey: "k4")
            #expect(!cache.contains(forKey: "k2"))
            #expect(cache.contains(forKey: "k1") && cache.contains(forKey: "k3") && cache.contains(forKey: "k4"))
            #expect(cache.statistics().totalBytes == 3 * fileSize)

            // A second instance orders entries by the modification times the first one wrote.
            clock.advance(by: 1)
            let reopened = try DiskCache(directory: directory, configuration: configuration, now: clock.reading)
            try reopened.store(sampleBytes(1_000), forKey: "k5")
            #expect(!reopened.contains(forKey: "k3"))
            #expect(reopened.contains(forKey: "k1") && reopened.contains(forKey: "k4"))
        }
    }

    @Test func evictionGoesDownToNinetyPercentOfTheLimit() throws {
        try withTemporaryDirectory { directory in
            let clock = TestWallClock()
            let fileSize = 55 + 1_000  // 3-byte keys
            let cache = try DiskCache(
                directory: directory, configuration: .init(sizeLimit: fileSize * 10), now: clock.reading)
            for index in 0..<11 {
                clock.advance(by: 1)
                try cache.store(sampleBytes(1_000), forKey: CacheKey("k\(index % 10)\(index / 10)"))
            }
            // 11 files exceed the 10-file limit; eviction stops at or below 9 files.
            #expect(cache.statistics().entryCount == 9)
            #expect(!cache.contains(forKey: "k00") && !cache.contains(forKey: "k10"))
        }
    }

    @Test func lifetimeExpiresEntriesOnTheInjectedClock() throws {
        try withTemporaryDirectory { directory in
            let clock = TestWallClock()
            let cache = try DiskCache(
                directory: directory, configuration: .init(entryLifetime: .seconds(100)), now: clock.reading)
            try cache.store(sampleBytes(100), forKey: "default")
            try cache.store(sampleBytes(100), forKey: "short", lifetime: .seconds(10))
            clock.advance(by: 9.5)
            #expect(cache.data(forKey: "short") != nil)
            #expect(cache.entry(forKey: "short")?.expiresAt == clock.now.addingTimeInterval(0.5))
            clock.advance(by: 0.5)

            let stale = try #require(cache.entry(forKey: "short", allowExpired: true))
            #expect(stale.isExpired && stale.data == sampleBytes(100))
            #expect(cache.data(forKey: "short") == nil)
            #expect(!cache.contains(forKey: "short"))
            #expect(cache.entry(forKey: "short", allowExpired: true) == nil)
            #expect(cache.data(forKey: "default") != nil)
            clock.advance(by: 90)
            #expect(cache.data(forKey: "default") == nil)
        }
    }

    @Test func sweepRemovesOnlyExpiredEntriesAndAbandonedTemporaryFiles() throws {
        try withTemporaryDirectory { directory in
            let clock = TestWallClock()
            let cache = try DiskCache(directory: directory, now: clock.reading)
            try cache.store(sampleBytes(100), forKey: "forever")
            try cache.store(sampleBytes(100), forKey: "soon", lifetime: .seconds(5))
            try cache.store(sampleBytes(100), forKey: "later", lifetime: .seconds(500))
            let abandoned = directory.appendingPathComponent("tmp/abandoned")
            let recent = directory.appendingPathComponent("tmp/in-progress")
            _ = FileManager.default.createFile(atPath: abandoned.path, contents: Data([1]))
            _ = FileManager.default.createFile(atPath: recent.path, contents: Data([1]))
            try FileManager.default.setAttributes(
                [.modificationDate: clock.now.addingTimeInterval(-7_200)], ofItemAtPath: abandoned.path)
            try FileManager.default.setAttributes([.modificationDate: clock.now], ofItemAtPath: recent.path)
            clock.advance(by: 10)
            #expect(cache.sweep() == 2)
            #expect(cache.statistics().entryCount == 2)
            #expect(cache.contains(forKey: "forever") && cache.contains(forKey: "later"))
            #expect(fileNames(in: directory.appendingPathComponent("tmp")) == ["in-progress"])
        }
    }

    @Test func refreshRewritesMetadataAndLifetime() throws {
        try withTemporaryDirectory { directory in
            let clock = TestWallClock()
            let cache = try DiskCache(directory: directory, now: clock.reading)
            try cache.store(sampleBytes(100), forKey: "k", metadata: ["ETag": "v1"], lifetime: .seconds(10))
            clock.advance(by: 20)
            #expect(try cache.refresh(forKey: "k", metadata: ["ETag": "v2"], lifetime: .seconds(60)))
            let entry = try #require(cache.entry(forKey: "k"))
            #expect(entry.metadata == ["ETag": "v2"] && entry.createdAt == clock.now && !entry.isExpired)
            #expect(entry.data == sampleBytes(100))
            #expect(try cache.refresh(forKey: "k", lifetime: .seconds(60)))
            #expect(cache.entry(forKey: "k")?.metadata == ["ETag": "v2"])
            #expect(try !cache.refresh(forKey: "missing"))
        }
    }

    @Test func removeAndRemoveAll() throws {
        try withTemporaryDirectory { directory in
            let cache = try DiskCache(directory: directory)
            for index in 0..<5 { try cache.store(sampleBytes(100), forKey: CacheKey("k\(index)")) }
            cache.remove(forKey: "k0")
            #expect(!cache.contains(forKey: "k0"))
            #expect(cache.statistics().entryCount == 4)
            cache.removeAll()
            #expect(cache.statistics().entryCount == 0 && cache.statistics().totalBytes == 0)
            #expect(fileNames(in: directory.appendingPathComponent("entries")).isEmpty)
            try cache.store(sampleBytes(100), forKey: "after")
            #expect(cache.data(forKey: "after") == sampleBytes(100))
        }
    }

    @Test func newInstanceSeesEntriesAndStatistics() throws {
        try withTemporaryDirectory { directory in
            let first = try DiskCache(directory: directory)
            for index in 0..<3 { try first.store(sampleBytes(1_000 * (index + 1)), forKey: CacheKey("k\(index)")) }
            let expected = first.statistics()
            let second = try DiskCache(directory: directory)
            #expect(second.statistics().entryCount == 3)
            #expect(second.statistics().totalBytes == expected.totalBytes)
            for index in 0..<3 { #expect(second.data(forKey: CacheKey("k\(index)")) == sampleBytes(1_000 * (index + 1))) }
        }
    }

    @Test func storeRecreatesDeletedDirectories() throws {
        try withTemporaryDirectory { directory in
            let root = directory.appendingPathComponent("cache")
            let cache = try DiskCache(directory: root)
            try cache.store(sampleBytes(100), forKey: "before")
            #expect(cache.statistics().entryCount == 1)
            try FileManager.default.removeItem(at: root)
            #expect(cache.data(forKey: "before") == nil)
            try cache.store(sampleBytes(200), forKey: "after")
            #expect(cache.data(forKey: "after") == sampleBytes(200))
            #expect(cache.statistics().entryCount == 1)
        }
    }

    @Test(arguments: [
        "../../etc/passwd", "/absolute/path", "a/b\\c\0d", "..", "", String(repeating: "x", count: 10_000),
    ])
    func keysNeverBecomePaths(key: String) throws {
        try withTemporaryDirectory { directory in
            let cache = try DiskCache(directory: directory.appendingPathComponent("cache"))
            try cache.store(sampleBytes(10), forKey: CacheKey(key))
            #expect(cache.data(forKey: CacheKey(key)) == sampleBytes(10))
            #expect(fileNames(in: directory) == ["cache"])
            #expect(fileNames(in: directory.appendingPathComponent("cache")) == ["entries", "tmp"])
            let names = fileNames(in: directory.appendingPathComponent("cache/entries"))
            #expect(names == [StableHash.sha256Hex(key)])
        }
    }

    @Test func concurrentStoresAndReadsNeverReturnWrongData() async throws {
        try await withTemporaryDirectory { directory in
            let cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 200_000))
            let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var wrong = 0
                        for step in 0..<100 {
                            let key = (step * 7 + worker) % 40
                            if step % 3 == 0 {
                                try cache.store(sampleBytes(2_000 + key, seed: UInt8(key)), forKey: CacheKey("k\(key)"))
                            } else if let data = cache.data(forKey: CacheKey("k\(key)")),
                                data != sampleBytes(2_000 + key, seed: UInt8(key))
                            {
                                wrong += 1
                            }
                        }
                        return wrong
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(wrong == 0)
            #expect(cache.statistics().totalBytes <= 200_000)
            // Reading every key drops any entry that a racing eviction deleted; then the index and
            // the directory agree.
            for key in 0..<40 { _ = cache.data(forKey: CacheKey("k\(key)")) }
            let onDisk = fileNames(in: directory.appendingPathComponent("entries"))
            #expect(onDisk.count == cache.statistics().entryCount)
        }
    }
}
