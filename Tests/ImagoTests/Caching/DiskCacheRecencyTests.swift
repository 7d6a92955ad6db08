import Foundation
import Testing

@testable import Imago

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Recency without a write per hit: hits are kept in memory and written to the entry files'
/// modification times in batches, which other processes (other `DiskCache` instances here) read.
@Suite("DiskCache recency")
struct DiskCacheRecencyTests {
    private func modified(_ cache: DiskCache, _ key: CacheKey) -> TimeInterval? {
        DiskCache.FileSystem.status(atPath: cache.path(ofEntry: DiskCache.entryName(for: key)))?.modified
    }

    @Test("A hit writes nothing to the file until the interval has passed; then one hit writes them all")
    func hitsArePersistedInBatches() throws {
        try withTemporaryDirectory { directory in
            let clock = TestWallClock()
            let cache = try DiskCache(
                directory: directory, configuration: .init(recencyPersistenceInterval: .seconds(30)), now: clock.reading)
            try cache.store(sampleBytes(100), forKey: "a")
            try cache.store(sampleBytes(100), forKey: "b")
            let stored = clock.now.timeIntervalSince1970
            #expect(modified(cache, "a") == stored)

            clock.advance(by: 5)
            #expect(cache.data(forKey: "a") != nil)  // starts the interval
            clock.advance(by: 10)
            #expect(cache.data(forKey: "b") != nil)
            #expect(modified(cache, "a") == stored && modified(cache, "b") == stored)

            clock.advance(by: 20)  // 30 s after the first hit
            #expect(cache.data(forKey: "a") != nil)
            #expect(modified(cache, "a") == clock.now.timeIntervalSince1970)
            #expect(modified(cache, "b") == stored + 15)
        }
    }

    @Test("Releasing the cache writes its hits, and another process then evicts by them")
    func releaseWritesHitsForOtherProcesses() throws {
        try withTemporaryDirectory { directory in
            let clock = TestWallClock()
            let fileSize = 54 + 1_000
            let configuration = DiskCache.Configuration(sizeLimit: fileSize * 7 / 2)
            do {
                let first = try DiskCache(directory: directory, configuration: configuration, now: clock.reading)
                for key in ["k1", "k2", "k3"] {
                    clock.advance(by: 1)
                    try first.store(sampleBytes(1_000), forKey: CacheKey(key))
                }
                clock.advance(by: 1)
                #expect(first.data(forKey: "k1") != nil)
                #expect(modified(first, "k1") == clock.now.timeIntervalSince1970 - 4 + 1)  // not yet written
            }
            clock.advance(by: 1)
            let second = try DiskCache(directory: directory, configuration: configuration, now: clock.reading)
            try second.store(sampleBytes(1_000), forKey: "k4")
            #expect(!second.contains(forKey: "k2"))
            #expect(second.contains(forKey: "k1") && second.contains(forKey: "k3") && second.contains(forKey: "k4"))
        }
    }

    @Test("A sweep writes waiting hits; a hit never ages a newer file renamed over the one it read")
    func sweepWritesAndNewerFilesKeepTheirTime() throws {
        try withTemporaryDirectory { directory in
            let clock = TestWallClock()
            let reader = try DiskCache(directory: directory, now: clock.reading)
            let writer = try DiskCache(directory: directory, now: clock.reading)
            try reader.store(sampleBytes(100), forKey: "a")
            try reader.store(sampleBytes(100), forKey: "b")
            clock.advance(by: 5)
            #expect(reader.data(forKey: "a") != nil)
            #expect(reader.data(forKey: "b") != nil)
            clock.advance(by: 5)
            try writer.store(sampleBytes(200), forKey: "b")  // a new file, stored after the hit
            #expect(reader.sweep() == 0)
            #expect(modified(reader, "a") == clock.now.timeIntervalSince1970 - 5)
            #expect(modified(reader, "b") == clock.now.timeIntervalSince1970)
        }
    }

    @Test("The journal hands back touches once the interval has passed, and holds a bounded number of names")
    func journalDecisions() {
        func name(_ key: CacheKey) -> DiskCache.EntryName { DiskCache.EntryName(key: key) }
        let (a, b, c) = (name("a"), name("b"), name("c"))
        var journal = DiskCache.RecencyJournal()
        #expect(journal.record(a, inode: 1, at: 100, interval: 30).isEmpty)
        #expect(journal.record(b, inode: 2, at: 110, interval: 30).isEmpty)
        #expect(journal.record(a, inode: 1, at: 105, interval: 30).isEmpty)  // newer: kept
        #expect(journal.record(a, inode: 1, at: 101, interval: 30).isEmpty)  // older: ignored
        let due = journal.record(c, inode: 3, at: 130, interval: 30)
        #expect(due == [a: .init(time: 105, inode: 1), b: .init(time: 110, inode: 2), c: .init(time: 130, inode: 3)])
        #expect(journal.pending.isEmpty)
        for index in 0..<(DiskCache.RecencyJournal.maximumPending + 10) {
            #expect(journal.record(name(CacheKey("n\(index)")), inode: UInt64(index), at: 131, interval: 30).isEmpty)
        }
        #expect(journal.pending.count == DiskCache.RecencyJournal.maximumPending)
        #expect(journal.record(name("n0"), inode: 0, at: 140, interval: 30).isEmpty)  // a kept name still moves forward
        #expect(journal.pending[name("n0")]?.time == 140)
        #expect(journal.record(name("n1"), inode: 1, at: 160, interval: 30).count == DiskCache.RecencyJournal.maximumPending)
        #expect(journal.drain(at: nil).isEmpty)
    }

    @Test("A hit on a file renamed over the one hit before replaces its touch, even at an earlier time; so does a later hit, full or not")
    func journalKeepsTheLatestTouchOfEachFile() {
        func name(_ key: CacheKey) -> DiskCache.EntryName { DiskCache.EntryName(key: key) }
        var journal = DiskCache.RecencyJournal()
        _ = journal.record(name("a"), inode: 1, at: 105, interval: 300)
        _ = journal.record(name("a"), inode: 2, at: 101, interval: 300)  // a new file under the name
        #expect(journal.pending[name("a")] == .init(time: 101, inode: 2))
        for index in 0..<DiskCache.RecencyJournal.maximumPending {
            _ = journal.record(name(CacheKey("n\(index)")), inode: 7, at: 110, interval: 300)
        }
        #expect(journal.pending.count == DiskCache.RecencyJournal.maximumPending)  // full
        _ = journal.record(name("a"), inode: 2, at: 100, interval: 300)  // earlier: ignored
        #expect(journal.pending[name("a")] == .init(time: 101, inode: 2))
        _ = journal.record(name("a"), inode: 3, at: 99, interval: 300)  // another file: kept
        #expect(journal.pending[name("a")] == .init(time: 99, inode: 3))
        _ = journal.record(name("a"), inode: 3, at: 120, interval: 300)
        #expect(journal.pending[name("a")] == .init(time: 120, inode: 3))
    }
}

@Suite("DiskCache entry format versions")
struct DiskCacheFormatVersionTests {
    /// Writes `payload` under `key` as a format-1 entry (zlib CRC-32), as an older build did.
    private func writeVersion1(_ payload: Data, key: CacheKey, in cache: DiskCache, damaged: Bool = false) throws {
        let header = EntryHeader(
            key: key.rawValue, payloadLength: payload.count, payloadChecksum: Checksum.crc32(payload),
            createdAt: Date(timeIntervalSince1970: 1_700_000_000), expiresAt: nil, metadata: ["ETag": "\"v1\""],
            version: 1)
        var bytes = Data(header.encoded()) + payload
        if damaged { bytes[bytes.count - 1] ^= 0x01 }
        try bytes.write(to: URL(fileURLWithPath: cache.path(ofEntry: DiskCache.entryName(for: key))))
    }

    @Test("Entries written by the previous format are read, verified with their own checksum")
    func version1EntriesAreRead() throws {
        try withTemporaryDirectory { directory in
            let cache = try DiskCache(directory: directory)
            try writeVersion1(sampleBytes(5_000), key: "old", in: cache)
            let entry = try #require(cache.entry(forKey: "old"))
            #expect(entry.data == sampleBytes(5_000) && entry.metadata == ["ETag": "\"v1\""])

            try writeVersion1(sampleBytes(5_000), key: "damaged", in: cache, damaged: true)
            #expect(cache.data(forKey: "damaged") == nil)
            #expect(!cache.contains(forKey: "damaged"))
        }
    }

    @Test("New entries are format 2 with CRC-32C checksums; a version-2 header with a CRC-32 is rejected")
    func newEntriesAreVersion2() throws {
        try withTemporaryDirectory { directory in
            let cache = try DiskCache(directory: directory)
            try cache.store(sampleBytes(1_000), forKey: "new")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: cache.path(ofEntry: DiskCache.entryName(for: "new")))))
            let (header, length) = try EntryHeader.parse(bytes)
            #expect(header.version == 2 && EntryHeader.formatVersion == 2)
            #expect(header.payloadChecksum == Checksum.crc32c(Array(bytes[length...])))

            // The same header fields checksummed the old way but labelled version 2: invalid.
            var mislabelled = EntryHeader(
                key: "x", payloadLength: 0, payloadChecksum: 0, createdAt: Date(timeIntervalSince1970: 1),
                expiresAt: nil, metadata: [:], version: 1
            ).encoded()
            mislabelled[4] = 2
            #expect(throws: EntryHeader.ParseError.invalid) { try EntryHeader.parse(mislabelled) }
            var unknown = EntryHeader(
                key: "x", payloadLength: 0, payloadChecksum: 0, createdAt: Date(timeIntervalSince1970: 1),
                expiresAt: nil, metadata: [:], version: 3
            ).encoded()
            #expect(throws: EntryHeader.ParseError.invalid) { try EntryHeader.parse(unknown) }
            unknown[4] = 2  // and a version-3 header relabelled 2 fails its checksum
            #expect(throws: EntryHeader.ParseError.invalid) { try EntryHeader.parse(unknown) }
        }
    }
}
