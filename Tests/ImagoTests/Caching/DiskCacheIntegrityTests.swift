import Foundation
import Testing

@testable import Imago

/// Damaged, foreign and unexpected files are never returned, and are deleted when read.
@Suite("DiskCache integrity")
struct DiskCacheIntegrityTests {
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case truncatedPayload, truncatedHeader, payloadBitFlip, headerBitFlip, keyBitFlip, lengthBitFlip,
            trailingBytes, foreignEntry, zeroBytes, randomGarbage

        var testDescription: String { rawValue }
    }

    private static let key: CacheKey = "https://example.com/cat.jpg"

    @Test(arguments: Damage.allCases)
    func damagedEntryIsAMissAndIsDeleted(damage: Damage) throws {
        try withTemporaryDirectory { directory in
            let cache = try DiskCache(directory: directory)
            try cache.store(sampleBytes(5_000), forKey: Self.key, metadata: ["ETag": "x"])
            let file = directory.appendingPathComponent("entries/\(DiskCache.entryName(for: Self.key))")
            var bytes = try Data(contentsOf: file)
            switch damage {
            case .truncatedPayload: bytes.removeLast(10)
            case .truncatedHeader: bytes = bytes.prefix(30)
            case .payloadBitFlip: bytes[bytes.count - 100] ^= 0x04
            case .headerBitFlip: bytes[33] ^= 0x01  // inside "created at": only the header CRC notices
            case .keyBitFlip: bytes[50] ^= 0x20
            case .lengthBitFlip: bytes[24] ^= 0x01
            case .trailingBytes: bytes.append(contentsOf: [1, 2, 3])
            case .foreignEntry:
                try cache.store(sampleBytes(5_000), forKey: "https://example.com/dog.jpg")
                bytes = try Data(
                    contentsOf: directory.appendingPathComponent(
                        "entries/\(DiskCache.entryName(for: "https://example.com/dog.jpg"))"))
            case .zeroBytes: bytes = Data()
            case .randomGarbage: bytes = Data((0..<5_000).map { _ in UInt8.random(in: 0...255) })
            }
            try writeRaw(bytes, to: file)

            #expect(cache.entry(forKey: Self.key, allowExpired: true) == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(cache.data(forKey: Self.key) == nil)
            if damage == .foreignEntry {
                #expect(cache.data(forKey: "https://example.com/dog.jpg") == sampleBytes(5_000))
            }
        }
    }

    /// `sweep` reads only headers, yet deletes entries whose header or length is wrong.
    @Test func sweepDeletesEntriesWithDamagedHeaders() throws {
        try withTemporaryDirectory { directory in
            let cache = try DiskCache(directory: directory)
            try cache.store(sampleBytes(100), forKey: "good")
            try cache.store(sampleBytes(100), forKey: "bad")
            let file = directory.appendingPathComponent("entries/\(DiskCache.entryName(for: "bad"))")
            var bytes = try Data(contentsOf: file)
            bytes[40] ^= 0x80
            try writeRaw(bytes, to: file)
            #expect(cache.sweep() == 1)
            #expect(cache.data(forKey: "good") == sampleBytes(100))
        }
    }

    /// Every prefix and every single-bit flip of a header decodes to something other than a valid
    /// header, and none traps.
    @Test func headerDecodingRejectsEveryTruncationAndBitFlip() {
        let header = EntryHeader(
            key: "k", payloadLength: 10, payloadChecksum: 42, createdAt: Date(timeIntervalSinceReferenceDate: 1),
            expiresAt: Date(timeIntervalSinceReferenceDate: 2), metadata: ["ETag": "v", "Vary": "Accept"])
        let bytes = header.encoded()
        #expect(bytes.withUnsafeBytes { EntryHeader.decode($0) } == .header(header, length: bytes.count))
        for length in 0..<bytes.count {
            let decoded = bytes.prefix(length).withUnsafeBytes { EntryHeader.decode($0) }
            #expect(decoded == .invalid || decoded == .needsBytes(length: bytes.count))
        }
        for bit in 0..<(bytes.count * 8) {
            var flipped = bytes
            flipped[bit / 8] ^= 1 << (bit % 8)
            if case .header = flipped.withUnsafeBytes({ EntryHeader.decode($0) }) {
                Issue.record("bit \(bit) flipped still decodes")
            }
        }
    }

    @Test func errorsNameThePathAndTheCause() throws {
        try withTemporaryDirectory { directory in
            let blocker = directory.appendingPathComponent("file")
            try writeRaw(Data([1]), to: blocker)
            let nested = blocker.appendingPathComponent("cache")
            #expect(throws: DiskCache.Error.cannotCreateDirectory(path: nested.path + "/entries", code: ENOTDIR)) {
                try DiskCache(directory: nested)
            }

            let cache = try DiskCache(directory: directory.appendingPathComponent("cache"))
            try cache.store(sampleBytes(10), forKey: "kept")
            let temporary = directory.appendingPathComponent("cache/tmp")
            try FileManager.default.removeItem(at: temporary)
            try writeRaw(Data([1]), to: temporary)
            let error = #expect(throws: DiskCache.Error.self) { try cache.store(sampleBytes(20), forKey: "kept") }
            guard case .cannotWriteEntry(let path, ENOTDIR) = error else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            #expect(path.hasPrefix(temporary.path + "/"))
            #expect(error?.description.contains("Not a directory") == true)
            #expect(error?.description.contains(temporary.path) == true)
            #expect(cache.data(forKey: "kept") == sampleBytes(10))
        }
    }

    @Test func entryLargerThanTheMaximumIsRefused() throws {
        try withTemporaryDirectory { directory in
            let cache = try DiskCache(directory: directory, configuration: .init(maximumEntrySize: 10))
            #expect(throws: DiskCache.Error.entryTooLarge("big", size: 11, limit: 10)) {
                try cache.store(sampleBytes(11), forKey: "big")
            }
            #expect(!cache.contains(forKey: "big"))
            #expect(DiskCache.Error.entryTooLarge("big", size: 11, limit: 10).description.contains("maximumEntrySize"))
        }
    }

    private func writeRaw(_ data: Data, to file: URL) throws {
        try data.write(to: file)
    }
}

/// Opening a large cache and asking for its statistics reads no entry.
@Suite("DiskCache lazy index")
struct DiskCacheLazyIndexTests {
    @Test func openingTwoThousandEntriesReadsNone() async throws {
        try await offThePool {
            try withTemporaryDirectory { directory in
                let writer = try DiskCache(directory: directory)
                for index in 0..<2_000 { try writer.store(sampleBytes(100 + index % 50), forKey: CacheKey("image-\(index)")) }
                let expected = writer.statistics()
                #expect(expected.entryCount == 2_000)

                // Replace every entry with garbage of the same size: any entry that was read would be
                // found damaged and deleted, so surviving files prove nothing was read.
                let entries = directory.appendingPathComponent("entries")
                for name in fileNames(in: entries) {
                    let file = entries.appendingPathComponent(name)
                    let size = try Data(contentsOf: file).count
                    try Data(repeating: 0xAB, count: size).write(to: file)
                }

                let reader = try DiskCache(directory: directory)
                #expect(reader.entryFilesOpened.load(ordering: .relaxed) == 0)
                let statistics = reader.statistics()
                #expect(statistics.entryCount == 2_000 && statistics.totalBytes == expected.totalBytes)
                try reader.store(sampleBytes(10), forKey: "one more")
                #expect(reader.statistics().entryCount == 2_001)
                #expect(reader.entryFilesOpened.load(ordering: .relaxed) == 0)
                #expect(fileNames(in: entries).count == 2_001)
            }
        }
    }
}
