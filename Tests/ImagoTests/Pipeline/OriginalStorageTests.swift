import Foundation
import ImagoTestSupport
import Synchronization
import Testing

@testable import Imago

/// The original bytes are stored once, by the data stage, and never kept when they fail to decode.
@Suite("Original bytes on disk")
struct OriginalStorageTests {
    /// A disk cache whose renames (one per stored entry) are counted, and whose writes wait at
    /// `gate` when one is given.
    static func countingDisk(
        _ fixture: PipelineFixture, renames: RenameCounter, gate: DispatchSemaphore? = nil
    ) throws -> DiskCache {
        let system = DiskCache.FileSystem.Calls.system
        var calls = system
        calls.rename = { source, destination in
            renames.count.add(1, ordering: .relaxed)
            return system.rename(source, destination)
        }
        if let gate {
            calls.write = { fd, bytes, count in
                gate.wait()
                gate.signal()
                return system.write(fd, bytes, count)
            }
        }
        return try DiskCache(directory: fixture.directory, configuration: .init(), now: { Date() }, calls: calls)
    }

    @Test("An original that decodes is stored exactly once, however many images and data callers share its download")
    func storedOnce() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.setBehavior("/photo.jpg", .held)
            let url = try fixture.serveJPEG(width: 400, height: 300)
            let renames = RenameCounter()
            var configuration = try fixture.configuration()
            configuration.diskCache = try Self.countingDisk(fixture, renames: renames)
            let pipeline = ImagePipeline(configuration: configuration)
            async let small = pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 40))
            async let large = pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 200))
            async let full = pipeline.image(for: ImageRequest(url: url))
            async let bytes = pipeline.data(for: ImageRequest(url: url))
            let download = ImagePipeline.WorkKey(ImageRequest(url: url).originalKey, .useCache)
            #expect(await eventually { pipeline.dataWork.waiterCount(for: download) == 4 })
            fixture.server.release("/photo.jpg")
            let images = try await [small, large, full]
            #expect(images.map(\.source) == [.network, .network, .network])
            #expect(try await bytes.source == .network)
            await pipeline.waitForDiskWrites()
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
            #expect(renames.count.load(ordering: .relaxed) == 1)
            #expect(try fixture.diskEntryCount() == 1)
            // The next pipeline reads it from disk.
            let next = try fixture.makePipeline()
            #expect(try await next.image(for: ImageRequest(url: url)).source == .disk)
        }
    }

    @Test("Downloaded bytes that fail to decode leave no original on disk, even when their write was under way")
    func failedDecodeLeavesNothing() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG(width: 64, height: 48)
            let gate = DispatchSemaphore(value: 0)
            let renames = RenameCounter()
            var configuration = try fixture.configuration()
            configuration.diskCache = try Self.countingDisk(fixture, renames: renames, gate: gate)
            configuration.decodingLimits.maximumSourceDimension = 32  // the header passes, the decode does not
            configuration.decodingLimits.maximumDimension = 32
            let pipeline = ImagePipeline(configuration: configuration)
            await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: ImageRequest(url: url)) }
            gate.signal()  // the write, begun or not, may go on now
            await pipeline.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 0)
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
            // Asked again, it is downloaded again: nothing on disk answered.
            await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: ImageRequest(url: url)) }
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 2)
        }
    }

    @Test("Bytes whose header is not an image's are never written, for data callers either")
    func notAnImageIsNotWritten() async throws {
        try await PipelineFixture.with { fixture in
            let url = fixture.server.url(for: "/page.jpg")
            fixture.server.set("/page.jpg", data: Data("<html>not found</html>".utf8), contentType: "image/jpeg")
            let renames = RenameCounter()
            var configuration = try fixture.configuration()
            configuration.diskCache = try Self.countingDisk(fixture, renames: renames)
            let pipeline = ImagePipeline(configuration: configuration)
            let original = try await pipeline.data(for: ImageRequest(url: url))
            #expect(original.source == .network && original.data.count > 0)
            await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: ImageRequest(url: url)) }
            await pipeline.waitForDiskWrites()
            #expect(renames.count.load(ordering: .relaxed) == 0)
            #expect(try fixture.diskEntryCount() == 0)
        }
    }

    @Test("A failed decode of a download that may not be written leaves the copy on disk alone")
    func unwrittenDownloadKeepsDisk() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG(width: 64, height: 48)
            let first = try fixture.makePipeline()
            _ = try await first.image(for: ImageRequest(url: url))
            await first.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 1)
            var configuration = try fixture.configuration()
            configuration.decodingLimits.maximumSourceDimension = 32
            configuration.decodingLimits.maximumDimension = 32
            let strict = ImagePipeline(configuration: configuration)
            var request = ImageRequest(url: url)
            request.cachePolicy = ImageRequest.CachePolicy(readsDisk: false, writesDisk: false)
            await #expect(throws: ImagePipeline.Error.self) { try await strict.image(for: request) }
            await strict.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 1)
        }
    }
}

/// Counts a disk cache's renames, from any thread.
final class RenameCounter: Sendable {
    let count = Atomic<Int>(0)
}
