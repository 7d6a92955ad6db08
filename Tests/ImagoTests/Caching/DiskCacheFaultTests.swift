import Foundation
import ImagoTestSupport
import Logging
import Synchronization
import Testing

@testable import Imago

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file system whose calls fail on demand: the seam `DiskCache.FileSystem.Calls`, with one
/// operation made to fail with one `errno` while `isFailing` is on.
final class FaultyFileSystem: Sendable {
    enum Operation: String, CaseIterable, Sendable {
        case openForWrite, write, rename, openForRead, read, makeDirectory
    }

    let operation: Operation
    let code: Int32
    private let failing = Atomic<Bool>(false)
    let injected = Atomic<Int>(0)

    init(_ operation: Operation, _ code: Int32) {
        self.operation = operation
        self.code = code
    }

    func setFailing(_ on: Bool) { failing.store(on, ordering: .sequentiallyConsistent) }

    private func fails(_ candidate: Operation) -> Bool {
        guard candidate == operation, failing.load(ordering: .sequentiallyConsistent) else { return false }
        injected.add(1, ordering: .relaxed)
        errno = code
        return true
    }

    var calls: DiskCache.FileSystem.Calls {
        let system = DiskCache.FileSystem.Calls.system
        return DiskCache.FileSystem.Calls(
            open: { path, flags, mode in
                let operation: Operation = flags & O_CREAT != 0 ? .openForWrite : .openForRead
                return self.fails(operation) ? -1 : system.open(path, flags, mode)
            },
            write: { fd, bytes, count in self.fails(.write) ? -1 : system.write(fd, bytes, count) },
            read: { fd, buffer, count, offset in self.fails(.read) ? -1 : system.read(fd, buffer, count, offset) },
            rename: { source, destination in self.fails(.rename) ? -1 : system.rename(source, destination) },
            makeDirectory: { path, mode in self.fails(.makeDirectory) ? -1 : system.makeDirectory(path, mode) })
    }
}

@Suite("DiskCache under file-system faults")
struct DiskCacheFaultTests {
    /// Every fault at every operation.
    static let cases: [(FaultyFileSystem.Operation, Int32)] = FaultyFileSystem.Operation.allCases.flatMap { operation in
        [ENOSPC, EIO, EACCES, EROFS, ENOENT].map { (operation, $0) }
    }

    @Test("A fault is a thrown store or a miss: no crash, no partial entry, the old entry kept, logged once", arguments: cases)
    func fault(operation: FaultyFileSystem.Operation, code: Int32) throws {
        try withTemporaryDirectory { directory in
            let log = LogRecorder()
            let faulty = FaultyFileSystem(operation, code)
            let cache = try DiskCache(
                directory: directory, configuration: .init(logger: log.logger), now: { Date() }, calls: faulty.calls)
            let old = sampleBytes(20_000, seed: 1)
            let new = sampleBytes(30_000, seed: 2)
            try cache.store(old, forKey: "k")

            faulty.setFailing(true)
            for _ in 0..<5 {
                do {
                    try cache.store(new, forKey: "k")
                } catch let error as DiskCache.Error {
                    #expect(error.description.contains("errno"))
                }
                let read = cache.data(forKey: "k")
                #expect(read == nil || read == old || read == new)
            }
            // Opening a cache while the fault lasts fails cleanly or works.
            _ = try? DiskCache(
                directory: directory.appendingPathComponent("sub"), configuration: .init(logger: log.logger),
                now: { Date() }, calls: faulty.calls)
            faulty.setFailing(false)

            #expect(faulty.injected.load(ordering: .relaxed) > 0 || operation == .makeDirectory)
            #expect(fileNames(in: directory.appendingPathComponent("tmp")).isEmpty, "a partial file was left")
            let after = cache.data(forKey: "k")
            switch operation {
            case .openForWrite, .write, .rename:
                #expect(after == old, "a failed store must leave the previous entry")
            case .openForRead, .read, .makeDirectory:
                #expect(after == old || after == new)
            }
            // Logged once per cause, never per request (a deleted file on read is a plain miss).
            let warnings = log.count(at: .warning)
            if code == ENOENT, operation == .openForRead {
                #expect(warnings == 0)
            } else if operation != .makeDirectory {
                #expect(warnings == 1, "\(log.all)")
            } else {
                #expect(warnings <= 1, "\(log.all)")
            }
        }
    }

    @Test("A cache directory deleted while in use is recreated; reads miss, then work again")
    func deletedDirectory() throws {
        try withTemporaryDirectory { parent in
            let directory = parent.appendingPathComponent("cache")
            let cache = try DiskCache(directory: directory)
            try cache.store(sampleBytes(1_000), forKey: "a")
            try FileManager.default.removeItem(at: directory)
            #expect(cache.data(forKey: "a") == nil)
            try cache.store(sampleBytes(2_000), forKey: "b")
            #expect(cache.data(forKey: "b") == sampleBytes(2_000))
            #expect(cache.statistics().entryCount == 1)
        }
    }

    @Test("A read-only directory (chmod 0500): stores fail cleanly, or succeed for root; reads stay exact")
    func readOnlyDirectory() throws {
        try withTemporaryDirectory { directory in
            let cache = try DiskCache(directory: directory)
            try cache.store(sampleBytes(1_000), forKey: "a")
            let entries = directory.appendingPathComponent("entries").path
            let tmp = directory.appendingPathComponent("tmp").path
            #expect(chmod(entries, 0o500) == 0 && chmod(tmp, 0o500) == 0)
            defer {
                _ = chmod(entries, 0o700)
                _ = chmod(tmp, 0o700)
            }
            do {
                try cache.store(sampleBytes(2_000), forKey: "b")
                #expect(geteuid() == 0, "only root writes into a 0500 folder")
                #expect(cache.data(forKey: "b") == sampleBytes(2_000))
            } catch {
                #expect(cache.data(forKey: "b") == nil)
            }
            #expect(cache.data(forKey: "a") == sampleBytes(1_000))
        }
    }

    @Test("With a full disk, images still load and the memory cache keeps serving them")
    func memoryCacheKeepsServing() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                server.set("/p.jpg", data: try Fixtures.jpeg(width: 40, height: 30), contentType: "image/jpeg")
                let faulty = FaultyFileSystem(.write, ENOSPC)
                faulty.setFailing(true)
                let disk = try DiskCache(directory: directory, configuration: .init(), now: { Date() }, calls: faulty.calls)
                let pipeline = ImagePipeline(
                    configuration: .init(memoryCache: MemoryCache(), diskCache: disk, connectivity: .alwaysReachable))
                let url = server.url(for: "/p.jpg")
                #expect(try await pipeline.image(for: ImageRequest(url: url)).source == .network)
                await pipeline.waitForDiskWrites()
                #expect(try await pipeline.image(for: ImageRequest(url: url)).source == .memory)
                #expect(disk.statistics().entryCount == 0)
                #expect(faulty.injected.load(ordering: .relaxed) > 0)
            }
        }
    }
}
