import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

@Suite("Pending disk writes are bounded")
struct PendingDiskWritesTests {
    @Test("Admission: bounded in count and in bytes; finished writes free their room")
    func rules() {
        var writes = PendingDiskWrites()
        let limits = PendingDiskWrites.Limits(count: 2, bytes: 100)
        #expect(writes.admit(1, bytes: 60, limits: limits) == .admitted)
        #expect(writes.admit(2, bytes: 50, limits: limits) == .skipped(isFirst: true))  // 110 bytes
        #expect(writes.admit(3, bytes: 40, limits: limits) == .admitted)
        #expect(writes.admit(4, bytes: 0, limits: limits) == .skipped(isFirst: false))  // 3 writes
        #expect(writes.pendingCount == 2 && writes.pendingBytes == 100 && writes.skippedCount == 2)
        writes.finish(1)
        #expect(writes.admit(5, bytes: 60, limits: limits) == .admitted)
        #expect(writes.admit(6, bytes: 101, limits: .init(count: 10, bytes: 100)) == .skipped(isFirst: false))
        writes.finish(3)
        writes.finish(5)
        writes.finish(5)
        #expect(writes.pendingCount == 0 && writes.pendingBytes == 0)
    }

    @Test("A removal overtakes its key's writes: one not begun never writes, one writing removes what it wrote")
    func removalsOvertakeWrites() {
        var writes = PendingDiskWrites()
        let limits = PendingDiskWrites.Limits(count: 10, bytes: 1_000)
        let a: CacheKey = "a"
        #expect(writes.admit(1, key: a, bytes: 10, limits: limits) == .admitted)
        #expect(writes.admit(2, key: a, bytes: 10, limits: limits) == .admitted)
        #expect(writes.admit(3, key: "b", bytes: 10, limits: limits) == .admitted)
        #expect(writes.begin(2) == true)
        writes.revoke(a)
        #expect(writes.phase(of: 1) == .revoked && writes.phase(of: 2) == .removesWhenDone && writes.phase(of: 3) == .waiting)
        #expect(writes.begin(1) == false)  // revoked before it began: it writes nothing
        #expect(writes.finish(1) == nil)
        #expect(writes.finish(2) == a)  // it wrote after the removal: what it wrote goes too
        #expect(writes.begin(3) == true)
        #expect(writes.finish(3) == nil)  // another key is left alone
        // A write admitted after the removal is a new one.
        #expect(writes.admit(4, key: a, bytes: 10, limits: limits) == .admitted)
        #expect(writes.begin(4) == true)
        #expect(writes.finish(4) == nil)
        // Emptying the cache overtakes every write.
        #expect(writes.admit(5, key: a, bytes: 10, limits: limits) == .admitted)
        #expect(writes.admit(6, key: "b", bytes: 10, limits: limits) == .admitted)
        #expect(writes.begin(6) == true)
        writes.revokeAll()
        #expect(writes.begin(5) == false)
        #expect(writes.finish(5) == nil)
        #expect(writes.finish(6) == "b")
        #expect(writes.pendingCount == 0 && writes.pendingBytes == 0)
    }

    @Test("A stuck disk: writes over the bound are skipped and counted, responses never wait for them")
    func stuckDisk() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                for index in 0..<4 {
                    server.set("/\(index).jpg", data: try Fixtures.jpeg(width: 16, height: 16, seed: index), contentType: "image/jpeg")
                }
                let gate = DispatchSemaphore(value: 0)
                let system = DiskCache.FileSystem.Calls.system
                var calls = system
                calls.write = { fd, bytes, count in
                    gate.wait()  // the disk hangs until the test lets it go
                    gate.signal()
                    return system.write(fd, bytes, count)
                }
                let disk = try DiskCache(directory: directory, configuration: .init(), now: { Date() }, calls: calls)
                var configuration = ImagePipeline.Configuration(diskCache: disk, connectivity: .alwaysReachable)
                configuration.maximumPendingDiskWrites = 1  // one blocked thread at most: the pool has few
                let pipeline = ImagePipeline(configuration: configuration)
                for index in 0..<3 {
                    let response = try await pipeline.image(for: ImageRequest(url: server.url(for: "/\(index).jpg")))
                    #expect(response.source == .network)
                }
                #expect(pipeline.diskWriter.skippedCount == 2)
                gate.signal()
                await pipeline.waitForDiskWrites()
                #expect(disk.statistics().entryCount == 1)
            }
        }
    }

    @Test("A write larger than the byte bound is skipped")
    func byteBound() async throws {
        try await withTemporaryDirectory { directory in
            try await withTestServer { server in
                server.set("/big.jpg", data: try Fixtures.jpeg(width: 64, height: 64), contentType: "image/jpeg")
                var configuration = ImagePipeline.Configuration(
                    diskCache: try DiskCache(directory: directory), connectivity: .alwaysReachable)
                configuration.maximumPendingDiskWriteBytes = 10
                let pipeline = ImagePipeline(configuration: configuration)
                _ = try await pipeline.image(for: ImageRequest(url: server.url(for: "/big.jpg")))
                await pipeline.waitForDiskWrites()
                #expect(pipeline.diskWriter.skippedCount == 1)
                #expect(try DiskCache(directory: directory).statistics().entryCount == 0)
            }
        }
    }
}
