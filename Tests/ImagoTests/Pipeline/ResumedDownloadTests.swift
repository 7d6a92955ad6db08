import Foundation
import Imago
import ImagoTestSupport
import Testing

/// Downloads that stop early and are resumed with `Range`/`If-Range`, against the loopback server
/// (which counts the body bytes it sends), through each loader.
@Suite("Resumed downloads")
struct ResumedDownloadTests {
    static let path = "/photo.jpg"

    /// A real JPEG, large enough to be cut in the middle.
    static func photo(seed: Int = 3) throws -> Data {
        try Fixtures.jpeg(width: 480, height: 360, seed: seed)
    }

    static func serve(_ fixture: PipelineFixture, _ data: Data, etag: String? = "\"v1\"", lastModified: String? = nil, ranges: Bool = true) {
        fixture.server.set(
            path, data: data, contentType: "image/jpeg", etag: etag, lastModified: lastModified, acceptsRanges: ranges)
    }

    static func pipeline(
        _ fixture: PipelineFixture, _ kind: LoaderKind, retry: RetryPolicy = .never,
        store: ResumableDataStore? = ResumableDataStore()
    ) throws -> ImagePipeline {
        var configuration = try fixture.configuration()
        configuration.retryPolicy = retry
        configuration.dataLoader = kind.makeDataLoader()
        configuration.resumableData = store
        return ImagePipeline(configuration: configuration)
    }

    /// Loads once with the body cut after half of it, which fails; returns how many bytes were kept.
    static func cutInHalf(_ fixture: PipelineFixture, _ pipeline: ImagePipeline, size: Int) async throws -> Int {
        fixture.server.setBehavior(path, .truncated(sendBytes: size / 2))
        let url = fixture.server.url(for: path)
        let error = await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: ImageRequest(url: url)) }
        #expect(error?.isTransient == true, "\(String(describing: error))")
        fixture.server.setBehavior(path, .normal)
        fixture.server.resetCounts()
        return pipeline.configuration.resumableData?.totalBytes ?? 0
    }

    /// The pixels of `data` decoded in one piece, as a clean download gives them.
    static func cleanPixels(_ data: Data) throws -> Bitmap {
        try ImageDecoder.decode(data).bitmap()
    }

    @Test(arguments: LoaderKind.allCases)
    func aDownloadCutInHalfAsksOnlyForTheMissingBytes(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try Self.photo()
            Self.serve(fixture, data)
            let pipeline = try Self.pipeline(fixture, kind)
            let kept = try await Self.cutInHalf(fixture, pipeline, size: data.count)
            #expect(kept > 0 && kept <= data.count / 2)

            let progress = Locked<[ImageTask.Progress]>([])
            let url = fixture.server.url(for: Self.path)
            let response = try await pipeline.image(for: ImageRequest(url: url)) { update in progress.withLock { $0.append(update) } }

            let requests = fixture.server.requests(for: Self.path)
            try #require(requests.count == 1)
            #expect(requests[0].header("range") == "bytes=\(kept)-")
            #expect(requests[0].header("if-range") == "\"v1\"")
            #expect(fixture.server.bodyBytesSent(for: Self.path) == data.count - kept, "only the missing bytes travel")
            #expect(try response.container.bitmap() == Self.cleanPixels(data))
            #expect(response.source == .network)
            await pipeline.waitForDiskWrites()
            #expect(await pipeline.cachedOriginal(for: ImageRequest(url: url)) == data, "the original on disk is the whole file")
            #expect(pipeline.configuration.resumableData?.count == 0)
            // Progress counts from the resumed byte, to the whole length.
            let reports = progress.withLock { $0 }
            #expect(!reports.isEmpty)
            #expect(reports.allSatisfy { $0.completed > Int64(kept) && $0.total == Int64(data.count) })
            #expect(reports.last?.completed == Int64(data.count))
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aRetryWithinOneLoadResumes(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try Self.photo()
            Self.serve(fixture, data)
            fixture.server.setBehavior(Self.path, .sequence([.truncated(sendBytes: data.count / 2)]))
            let pipeline = try Self.pipeline(fixture, kind, retry: RetryPolicy(maximumAttempts: 2, baseDelay: .zero))
            let url = fixture.server.url(for: Self.path)
            let response = try await pipeline.image(for: ImageRequest(url: url))
            let requests = fixture.server.requests(for: Self.path)
            try #require(requests.count == 2)
            #expect(requests[0].header("range") == nil)
            let range = try #require(requests[1].header("range"))
            #expect(range.hasPrefix("bytes=") && range != "bytes=0-")
            #expect(fixture.server.bodyBytesSent(for: Self.path) < data.count + data.count / 2)
            #expect(try response.container.bitmap() == Self.cleanPixels(data))
            #expect(response.timing.attempts == 2)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aChangedETagStartsOver(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try Self.photo()
            Self.serve(fixture, data)
            let pipeline = try Self.pipeline(fixture, kind)
            let kept = try await Self.cutInHalf(fixture, pipeline, size: data.count)
            #expect(kept > 0)
            let changed = try Self.photo(seed: 9)
            Self.serve(fixture, changed, etag: "\"v2\"")

            let response = try await pipeline.image(for: ImageRequest(url: fixture.server.url(for: Self.path)))
            let requests = fixture.server.requests(for: Self.path)
            try #require(requests.count == 1)
            #expect(requests[0].header("if-range") == "\"v1\"", "it asked, and the server said no with a 200")
            #expect(fixture.server.bodyBytesSent(for: Self.path) == changed.count)
            #expect(try response.container.bitmap() == Self.cleanPixels(changed))
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aServerThatIgnoresRangeStillWorks(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try Self.photo()
            Self.serve(fixture, data)
            let pipeline = try Self.pipeline(fixture, kind)
            let kept = try await Self.cutInHalf(fixture, pipeline, size: data.count)
            #expect(kept > 0)
            fixture.server.setBehavior(Self.path, .ignoresRange)

            let response = try await pipeline.image(for: ImageRequest(url: fixture.server.url(for: Self.path)))
            let requests = fixture.server.requests(for: Self.path)
            try #require(requests.count == 1)
            #expect(requests[0].header("range") != nil)
            #expect(fixture.server.bodyBytesSent(for: Self.path) == data.count)
            #expect(try response.container.bitmap() == Self.cleanPixels(data))
        }
    }

    /// A 206 that cannot continue the kept bytes: its bytes are dropped, and one more request
    /// (without `Range`) fetches the whole file.
    @Test(arguments: LoaderKind.allCases, ["bytes 0-99/100", "bytes 1-2/3", "nonsense"])
    func aWrongContentRangeStartsOver(_ kind: LoaderKind, contentRange: String) async throws {
        try await PipelineFixture.with { fixture in
            let data = try Self.photo()
            Self.serve(fixture, data)
            let pipeline = try Self.pipeline(fixture, kind)
            let kept = try await Self.cutInHalf(fixture, pipeline, size: data.count)
            #expect(kept > 0)
            fixture.server.setBehavior(Self.path, .sequence([.wrongContentRange(contentRange)]))

            let response = try await pipeline.image(for: ImageRequest(url: fixture.server.url(for: Self.path)))
            let requests = fixture.server.requests(for: Self.path)
            try #require(requests.count == 2)
            #expect(requests[0].header("range") == "bytes=\(kept)-")
            #expect(requests[1].header("range") == nil, "the kept bytes were dropped")
            #expect(try response.container.bitmap() == Self.cleanPixels(data))
            #expect(response.timing.attempts == 2)
        }
    }

    /// A server that ignores `If-Range` answers 206 from a changed file, with its new ETag: the
    /// bytes would make a chimera of two images, so they are dropped.
    @Test(arguments: LoaderKind.allCases)
    func a206FromAChangedFileStartsOver(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try Self.photo()
            Self.serve(fixture, data)
            let pipeline = try Self.pipeline(fixture, kind)
            let kept = try await Self.cutInHalf(fixture, pipeline, size: data.count)
            #expect(kept > 0)
            // Same length, so only the validator tells the two apart.
            var changed = data
            changed[changed.count - 10] ^= 0xFF
            Self.serve(fixture, changed, etag: "\"v2\"")
            fixture.server.setBehavior(Self.path, .sequence([.ignoresIfRange]))

            let loaded = try await pipeline.data(for: ImageRequest(url: fixture.server.url(for: Self.path)))
            let requests = fixture.server.requests(for: Self.path)
            try #require(requests.count == 2)
            #expect(requests[1].header("range") == nil)
            #expect(loaded.data == changed)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func lastModifiedAloneIsEnough(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try Self.photo()
            let date = "Wed, 21 Oct 2015 07:28:00 GMT"
            Self.serve(fixture, data, etag: nil, lastModified: date)
            let pipeline = try Self.pipeline(fixture, kind)
            let kept = try await Self.cutInHalf(fixture, pipeline, size: data.count)
            #expect(kept > 0)
            let loaded = try await pipeline.data(for: ImageRequest(url: fixture.server.url(for: Self.path)))
            #expect(fixture.server.requests(for: Self.path).first?.header("if-range") == date)
            #expect(fixture.server.bodyBytesSent(for: Self.path) == data.count - kept)
            #expect(loaded.data == data)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func theLastCallerCancellingKeepsWhatArrived(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try Self.photo()
            Self.serve(fixture, data)
            let half = data.count / 2
            fixture.server.setBehavior(Self.path, .slices(boundaries: [half]))
            let pipeline = try Self.pipeline(fixture, kind)
            let store = try #require(pipeline.configuration.resumableData)
            let url = fixture.server.url(for: Self.path)
            let task = pipeline.imageTask(with: ImageRequest(url: url))
            var received: Int64 = 0
            for await update in task.progress where update.completed >= Int64(half) {
                received = update.completed
                break
            }
            #expect(received == Int64(half))
            task.cancel()
            await #expect(throws: ImagePipeline.Error.cancelled(url)) { try await task.response }
            #expect(await eventually { store.totalBytes == half }, "the download stops and keeps its first half")
            fixture.server.setBehavior(Self.path, .normal)
            fixture.server.resetCounts()

            let loaded = try await pipeline.data(for: ImageRequest(url: url))
            #expect(fixture.server.requests(for: Self.path).first?.header("range") == "bytes=\(half)-")
            #expect(fixture.server.bodyBytesSent(for: Self.path) == data.count - half)
            #expect(loaded.data == data)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aServerWithoutRangesIsDownloadedAgainWhole(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let data = try Self.photo()
            Self.serve(fixture, data, ranges: false)
            let pipeline = try Self.pipeline(fixture, kind)
            let kept = try await Self.cutInHalf(fixture, pipeline, size: data.count)
            #expect(kept == 0)
            let loaded = try await pipeline.data(for: ImageRequest(url: fixture.server.url(for: Self.path)))
            #expect(fixture.server.requests(for: Self.path).first?.header("range") == nil)
            #expect(loaded.data == data)
        }
    }

    @Test func aStoreTooSmallForThePartKeepsNothing() async throws {
        try await PipelineFixture.with { fixture in
            let data = try Self.photo()
            Self.serve(fixture, data)
            let pipeline = try Self.pipeline(fixture, .urlSession, store: ResumableDataStore(countLimit: 4, costLimit: 100))
            #expect(try await Self.cutInHalf(fixture, pipeline, size: data.count) == 0)
            _ = try await pipeline.data(for: ImageRequest(url: fixture.server.url(for: Self.path)))
            #expect(fixture.server.requests(for: Self.path).first?.header("range") == nil)
        }
    }

    @Test func noStoreMeansNoResumption() async throws {
        try await PipelineFixture.with { fixture in
            let data = try Self.photo()
            Self.serve(fixture, data)
            let pipeline = try Self.pipeline(fixture, .urlSession, store: nil)
            _ = try await Self.cutInHalf(fixture, pipeline, size: data.count)
            _ = try await pipeline.data(for: ImageRequest(url: fixture.server.url(for: Self.path)))
            #expect(fixture.server.requests(for: Self.path).first?.header("range") == nil)
            #expect(fixture.server.bodyBytesSent(for: Self.path) == data.count)
        }
    }
}
