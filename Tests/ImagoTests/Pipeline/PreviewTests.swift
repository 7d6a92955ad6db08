import Foundation
import ImagoTestSupport
import MetricsTestKit
import Testing

@testable import Imago

/// Previews of a progressive JPEG that the loopback server sends scan by scan (each part waits for
/// the test to let it go, so what arrives when is the test's to decide, not the machine's speed).
@Suite("Progressive previews")
struct PreviewTests {
    static let path = "/progressive.jpg"

    /// A real progressive JPEG (five scans) and where each scan's part of it ends: the server sends
    /// up to the marker after scan k (two bytes past its boundary), so that scan k is complete.
    static func progressive(width: Int = 640, height: Int = 480) throws -> (data: Data, parts: [Int]) {
        let data = try JPEGEncoder(quality: 0.9, progressive: true).encode(Fixtures.picture(width: width, height: height, seed: 8))
        var tracker = JPEGScanTracker()
        var parts: [Int] = []
        for offset in data.indices {
            tracker.consume(data[offset...offset])
            if tracker.completedScans > parts.count { parts.append(offset + 1) }
        }
        #expect(parts.count == 5)
        return (data, Array(parts.dropLast()))  // the last scan ends with the file
    }

    static func pipeline(
        _ fixture: PipelineFixture, _ kind: LoaderKind = .urlSession, previews: Bool = true, metrics: TestMetrics? = nil
    ) throws -> ImagePipeline {
        var configuration = try fixture.configuration()
        configuration.dataLoader = kind.makeDataLoader()
        configuration.decodesPreviews = previews
        configuration.retryPolicy = .never
        if let metrics { configuration.metricsFactory = metrics }
        return ImagePipeline(configuration: configuration)
    }

    /// The next preview among `events`, skipping progress; `nil` when the load ends first.
    static func nextPreview(_ events: inout AsyncStream<PipelineEvent>.AsyncIterator) async -> ImagePreview? {
        while let event = await events.next() {
            switch event {
            case .preview(_, let preview): return preview
            case .completed, .failed, .cancelled: return nil
            default: continue
            }
        }
        return nil
    }

    /// The names of the events left in `events`, until it ends.
    static func names(_ events: AsyncStream<PipelineEvent>) async -> [String] {
        var names: [String] = []
        for await event in events { names.append(event.name) }
        return names
    }

    @Test(.timeLimit(.minutes(2)), arguments: LoaderKind.allCases)
    func previewsArriveInOrderEachSharperAndNeverCached(_ kind: LoaderKind) async throws {
        try await PipelineFixture.with { fixture in
            let (data, parts) = try Self.progressive()
            fixture.server.set(Self.path, data: data, contentType: "image/jpeg")
            fixture.server.setBehavior(Self.path, .slices(boundaries: parts))
            let pipeline = try Self.pipeline(fixture, kind)
            let request = ImageRequest(url: fixture.server.url(for: Self.path))
            let task = pipeline.imageTask(with: request)
            var events = task.events.makeAsyncIterator()
            var previews: [ImagePreview] = []
            for scans in 1...parts.count {
                let preview = try #require(await Self.nextPreview(&events), "no preview after scan \(scans)")
                previews.append(preview)
                #expect(preview.scanCount == scans)
                #expect(preview.byteCount == parts[scans - 1] - 2)
                // Nothing of it is cached, in memory or on disk.
                #expect(pipeline.cachedImage(for: request) == nil)
                await pipeline.waitForDiskWrites()
                #expect(try fixture.diskEntryCount() == 0)
                fixture.server.sendNextSlice(Self.path)
            }
            let response = try await task.response
            #expect(await Self.nextPreview(&events) == nil, "no preview after the final image")

            // The final image is what a load without previews makes of the same bytes.
            fixture.server.setBehavior(Self.path, .normal)
            let plain = try await Self.pipeline(fixture, kind, previews: false).image(
                for: ImageRequest(url: request.url, cachePolicy: .reloadIgnoringCache))
            let final = try response.container.bitmap()
            #expect(try plain.container.bitmap() == final)
            // Each preview at the final size, and closer to it than the one before.
            var closeness = -Double.infinity
            for preview in previews {
                let pixels = try preview.container.bitmap()
                #expect(pixels.width == final.width && pixels.height == final.height)
                let psnr = ColorDifference.peakSignalToNoise(pixels, final)
                #expect(psnr > closeness, "\(preview): \(psnr) dB")
                closeness = psnr
            }
            // The caches hold the final image and the original bytes, nothing else.
            #expect(try pipeline.cachedImage(for: request)?.bitmap() == final)
            #expect(pipeline.memoryCache?.totalCount == 1)
            await pipeline.waitForDiskWrites()
            #expect(await pipeline.cachedOriginal(for: request) == data)
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aThumbnailRequestGetsThumbnailPreviews() async throws {
        try await PipelineFixture.with { fixture in
            let (data, parts) = try Self.progressive()
            fixture.server.set(Self.path, data: data, contentType: "image/jpeg")
            fixture.server.setBehavior(Self.path, .slices(boundaries: parts))
            let pipeline = try Self.pipeline(fixture)
            let task = pipeline.imageTask(with: ImageRequest(url: fixture.server.url(for: Self.path), maximumPixelSize: 64))
            var events = task.events.makeAsyncIterator()
            var sizes: [PixelSize] = []
            for _ in parts {
                let preview = try #require(await Self.nextPreview(&events))
                sizes.append(preview.container.pixelSize)
                fixture.server.sendNextSlice(Self.path)
            }
            let final = try await task.response.container.pixelSize
            #expect(final == PixelSize(width: 64, height: 48))
            #expect(sizes == Array(repeating: final, count: parts.count))
        }
    }

    /// One caller with previews leaves; another, without, keeps the download going: no preview is
    /// decoded for the one that left, though more scans arrive.
    @Test(.timeLimit(.minutes(2)))
    func cancellingStopsPreviewDecoding() async throws {
        try await PipelineFixture.with { fixture in
            let (data, parts) = try Self.progressive()
            fixture.server.set(Self.path, data: data, contentType: "image/jpeg")
            fixture.server.setBehavior(Self.path, .slices(boundaries: parts))
            let metrics = TestMetrics()
            let pipeline = try Self.pipeline(fixture, metrics: metrics)
            let url = fixture.server.url(for: Self.path)
            let watched = pipeline.imageTask(with: ImageRequest(url: url))
            var other = ImageRequest(url: url, maximumPixelSize: 100)
            other.decodesPreviews = false
            let unwatched = pipeline.imageTask(with: other)
            var events = watched.events.makeAsyncIterator()
            #expect(await Self.nextPreview(&events)?.scanCount == 1)
            watched.cancel()
            await #expect(throws: ImagePipeline.Error.cancelled(url)) { try await watched.response }
            let decodedBefore = metrics.counterTotal(label: "imago_preview_decodes_total")
            #expect(decodedBefore == 1)
            for _ in parts { fixture.server.sendNextSlice(Self.path) }
            _ = try await unwatched.response
            // Both shared one download, which went on after the watched caller left.
            #expect(fixture.server.requests(for: Self.path).count == 1)
            #expect(metrics.counterTotal(label: "imago_preview_decodes_total") == decodedBefore)
            #expect(metrics.counterTotal(label: "imago_previews_total") == 1)
            var after: [String] = []
            while let event = await events.next() { after.append(event.name) }
            #expect(after == ["cancelled"])
        }
    }

    @Test(.timeLimit(.minutes(2)), arguments: [(true, false), (false, true)])
    func theRequestOverridesTheConfiguration(configured: Bool, requested: Bool) async throws {
        try await PipelineFixture.with { fixture in
            let (data, parts) = try Self.progressive(width: 160, height: 120)
            fixture.server.set(Self.path, data: data, contentType: "image/jpeg")
            fixture.server.setBehavior(Self.path, .slices(boundaries: [parts[0]]))
            let pipeline = try Self.pipeline(fixture, previews: configured)
            var request = ImageRequest(url: fixture.server.url(for: Self.path))
            request.decodesPreviews = requested
            let task = pipeline.imageTask(with: request)
            var events = task.events.makeAsyncIterator()
            var names: [String] = []
            if requested {
                let preview = await Self.nextPreview(&events)
                #expect(preview?.scanCount == 1)
                names += preview.map { ["preview:\($0.scanCount)"] } ?? []
            } else {
                #expect(await eventually { fixture.server.bodyBytesSent(for: Self.path) == parts[0] })
            }
            fixture.server.sendNextSlice(Self.path)
            _ = try await task.response
            while let event = await events.next() { names.append(event.name) }
            #expect(names.contains("preview:1") == requested, "\(names)")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aBaselineJPEGHasNoPreviews() async throws {
        try await PipelineFixture.with { fixture in
            let data = try Fixtures.jpeg(width: 640, height: 480, seed: 2)
            fixture.server.set(Self.path, data: data, contentType: "image/jpeg")
            fixture.server.setBehavior(Self.path, .slices(boundaries: [data.count / 4, data.count / 2]))
            let metrics = TestMetrics()
            let pipeline = try Self.pipeline(fixture, metrics: metrics)
            let task = pipeline.imageTask(with: ImageRequest(url: fixture.server.url(for: Self.path)))
            #expect(await eventually { fixture.server.bodyBytesSent(for: Self.path) == data.count / 4 })
            fixture.server.sendNextSlice(Self.path)
            fixture.server.sendNextSlice(Self.path)
            _ = try await task.response
            let names = await Self.names(task.events)
            #expect(!names.contains { $0.hasPrefix("preview") })
            #expect(metrics.counterTotal(label: "imago_preview_decodes_total") == 0)
        }
    }
}

