import Foundation
@testable import Imago
import ImagoTestSupport
import Testing

@Suite("Image pipeline")
struct ImagePipelineTests {
    @Test("Network, then memory, then disk in a new pipeline; one request in all")
    func sources() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            let first = try await pipeline.image(for: ImageRequest(url: url))
            #expect(first.source == .network)
            #expect(first.format == .jpeg)
            #expect(first.container.pixelSize == PixelSize(width: 64, height: 48))
            #expect(try await pipeline.image(for: ImageRequest(url: url)).source == .memory)
            await pipeline.waitForDiskWrites()

            let fresh = try fixture.makePipeline()
            let fromDisk = try await fresh.image(for: ImageRequest(url: url))
            #expect(fromDisk.source == .disk)
            #expect(fromDisk.container.pixelSize == first.container.pixelSize)
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
        }
    }

    @Test("Fifty concurrent requests for one URL make one HTTP request and one decode")
    func coalescing() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.setBehavior("/photo.jpg", .delay(.milliseconds(200)))
            let url = try fixture.serveJPEG()
            let decoder = CountingDecoder()
            let pipeline = ImagePipeline(
                configuration: .init(decoders: ImageDecoderRegistry(decoders: [decoder]), diskCache: try DiskCache(directory: fixture.directory)))
            let sources = try await withThrowingTaskGroup(of: ImageResponse.Source.self) { group in
                for _ in 0..<50 { group.addTask { try await pipeline.image(for: ImageRequest(url: url)).source } }
                return try await group.reduce(into: [ImageResponse.Source]()) { $0.append($1) }
            }
            #expect(sources.count == 50)
            #expect(sources.allSatisfy { $0 == .network || $0 == .memory })
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
            #expect(decoder.count == 1)
        }
    }

    @Test("maximumPixelSize with processors after it: one reduced decode, the thumbnail first, then the processors")
    func thumbnailThenProcessors() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG(width: 1600, height: 1200)
            let option = ImageRequest(url: url, maximumPixelSize: 100)
            let optionThenCrop = ImageRequest(url: url, maximumPixelSize: 100, processors: [ImageProcessors.Crop.centerSquare])
            let decoder = CountingDecoder()
            let pipeline = ImagePipeline(
                configuration: .init(decoders: ImageDecoderRegistry(decoders: [decoder]), memoryCache: nil, connectivity: .alwaysReachable))
            let image = try await pipeline.image(for: optionThenCrop).container.bitmap()
            // Decoded for the thumbnail, not at full size: at the largest reduction that covers
            // it (1/8 of 1600 is 200).
            #expect(decoder.maximumPixelSizes == [200])
            // 1600x1200 to at most 100 a side is 100x75; its centre square is 75x75.
            #expect(image.width == 75 && image.height == 75)
            #expect(option.processedKey != optionThenCrop.processedKey)
        }
    }

    @Test("Different thumbnails of one URL share one download")
    func thumbnailsShareDownload() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.setBehavior("/photo.jpg", .held)
            let url = try fixture.serveJPEG(width: 400, height: 300)
            let pipeline = try fixture.makePipeline()
            async let small = pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 40))
            async let large = pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 200))
            async let full = pipeline.image(for: ImageRequest(url: url))
            let download = ImagePipeline.WorkKey(ImageRequest(url: url).originalKey, .useCache)
            #expect(await eventually { pipeline.dataWork.waiterCount(for: download) == 3 })
            fixture.server.release("/photo.jpg")
            let sizes = try await [small, large, full].map(\.container.pixelSize)
            #expect(sizes == [PixelSize(width: 40, height: 30), PixelSize(width: 200, height: 150), PixelSize(width: 400, height: 300)])
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
            await pipeline.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 1)
        }
    }

    @Test("A caller that cancels leaves alone: the others still get the image")
    func perCallerCancellation() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.setBehavior("/photo.jpg", .held)
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            let leaving = Task { try await pipeline.image(for: ImageRequest(url: url)) }
            let staying = Task { try await pipeline.image(for: ImageRequest(url: url)) }
            let work = ImagePipeline.WorkKey(ImageRequest(url: url).processedKey, .useCache)
            #expect(await eventually { pipeline.imageWork.waiterCount(for: work) == 2 })
            #expect(await eventually { fixture.server.requestCount(for: "/photo.jpg") == 1 })
            leaving.cancel()
            await #expect(throws: ImagePipeline.Error.cancelled(url)) { try await leaving.value }
            fixture.server.release("/photo.jpg")
            let response = try await staying.value
            #expect(response.source == .network)
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
        }
    }

    @Test("When the last caller cancels, the download stops and nothing reaches the disk")
    func lastCallerCancelsSharedWork() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.setBehavior("/endless.jpg", .endless(chunkSize: 1024))
            let url = fixture.server.url(for: "/endless.jpg")
            let pipeline = try fixture.makePipeline()
            let callers = (0..<3).map { _ in Task { try await pipeline.image(for: ImageRequest(url: url)) } }
            #expect(await eventually { fixture.server.currentRequests == 1 })
            for caller in callers {
                caller.cancel()
                await #expect(throws: ImagePipeline.Error.cancelled(url)) { try await caller.value }
            }
            #expect(await eventually { fixture.server.currentRequests == 0 })
            await pipeline.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 0)
            #expect(fixture.server.requestCount(for: "/endless.jpg") == 1)
        }
    }

    @Test("A request after the shared work was cancelled starts a new download")
    func restartAfterCancellation() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.setBehavior("/photo.jpg", .held)
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            let cancelled = Task { try await pipeline.image(for: ImageRequest(url: url)) }
            #expect(await eventually { fixture.server.requestCount(for: "/photo.jpg") == 1 })
            cancelled.cancel()
            await #expect(throws: ImagePipeline.Error.cancelled(url)) { try await cancelled.value }
            fixture.server.release("/photo.jpg")
            let response = try await pipeline.image(for: ImageRequest(url: url))
            #expect(response.source == .network)
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 2)
        }
    }

    @Test(
        "Failed downloads and undecodable bytes leave nothing on disk",
        arguments: [
            TestServer.Behavior.status(404),
            .status(500),
            .truncated(sendBytes: 100),
            .html,
        ])
    func failuresAreNotCached(behavior: TestServer.Behavior) async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            fixture.server.setBehavior("/photo.jpg", behavior)
            let pipeline = try fixture.makePipeline()
            await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: ImageRequest(url: url)) }
            await pipeline.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 0)
            #expect(pipeline.cachedImage(for: ImageRequest(url: url)) == nil)
        }
    }

    @Test(
        "Non-http schemes are refused without any I/O",
        arguments: ["file:///etc/passwd", "ftp://127.0.0.1/a.jpg", "data:image/png;base64,AAAA", "gopher://x/y"])
    func unsupportedSchemes(string: String) async throws {
        let url = try #require(URL(string: string))
        let pipeline = ImagePipeline(configuration: .init(memoryCache: nil))
        await #expect(throws: ImagePipeline.Error.unsupportedScheme(url)) {
            try await pipeline.image(for: ImageRequest(url: url))
        }
        await #expect(throws: ImagePipeline.Error.unsupportedScheme(url)) {
            try await pipeline.data(for: ImageRequest(url: url))
        }
    }

    @Test("data(for:) returns the original bytes, from the network then from disk")
    func dataForRequest() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            let original = try await pipeline.data(for: ImageRequest(url: url))
            let (data, source) = (original.data, original.source)
            #expect(source == .network)
            #expect(ImageFormat.sniff(data) == .jpeg)
            await pipeline.waitForDiskWrites()
            let second = try await fixture.makePipeline().data(for: ImageRequest(url: url))
            let (again, secondSource) = (second.data, second.source)
            #expect(secondSource == .disk)
            #expect(again == data)
        }
    }

    @Test("An ImageTask reports progress and can be cancelled")
    func imageTask() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG(width: 300, height: 200)
            let pipeline = try fixture.makePipeline()
            let task = pipeline.imageTask(with: ImageRequest(url: url))
            var updates: [ImageTask.Progress] = []
            for await update in task.progress { updates.append(update) }
            let response = try await task.response
            #expect(response.source == .network)
            let last = try #require(updates.last)
            #expect(last.completed == Int64(response.encodedByteCount ?? -1))

            fixture.server.setBehavior("/slow.jpg", .endless(chunkSize: 512))
            let slow = pipeline.imageTask(with: ImageRequest(url: fixture.server.url(for: "/slow.jpg")))
            slow.cancel()
            await #expect(throws: ImagePipeline.Error.cancelled(slow.request.url)) { try await slow.response }
        }
    }

    @Test("The cache policy returnCacheDataDontLoad never touches the network")
    func cacheOnly() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            let request = ImageRequest(url: url, cachePolicy: .returnCacheDataDontLoad)
            await #expect(throws: ImagePipeline.Error.notCached(url)) { try await pipeline.image(for: request) }
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 0)
        }
    }
}
