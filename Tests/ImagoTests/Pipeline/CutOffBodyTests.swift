import Foundation
import Imago
import ImagoTestSupport
import Testing

/// Damage in transit is not damage at the source: a body the network cut off (short of its
/// declared `Content-Length`, or a chunked body without its terminating chunk) is a transport
/// error, retried and never cached, however leniently the bytes that did arrive would decode.
@Suite("A body cut off in transit: an error, a retry, nothing cached")
struct CutOffBodyTests {
    enum Cut: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case lengthDeclared
        case chunked
        var testDescription: String { rawValue }

        /// The behaviour that sends the first `bytes` bytes of the resource and closes.
        func behavior(sending bytes: Int) -> TestServer.Behavior {
            switch self {
            case .lengthDeclared: .truncated(sendBytes: bytes)
            case .chunked: .truncatedChunked(sendBytes: bytes, chunkSize: 1_000)
            }
        }
    }

    /// A progressive-free JPEG large enough that 60% of it is a real, leniently decodable start.
    private static func serve(_ fixture: PipelineFixture) throws -> (URL, Int) {
        let data = try Fixtures.jpeg(width: 320, height: 240, seed: 7)
        fixture.server.set("/photo.jpg", data: data, contentType: "image/jpeg")
        return (fixture.server.url(for: "/photo.jpg"), data.count)
    }

    private static func pipeline(_ fixture: PipelineFixture, _ kind: LoaderKind, clock: ManualClock) throws -> ImagePipeline {
        var configuration = try fixture.configuration()
        configuration.clock = clock
        configuration.retryPolicy = RetryPolicy(maximumAttempts: 3)
        configuration.dataLoader = kind.makeDataLoader()
        return ImagePipeline(configuration: configuration)
    }

    @Test(arguments: LoaderKind.allCases, Cut.allCases)
    func everyAttemptCutOffFailsAndCachesNothing(_ kind: LoaderKind, _ cut: Cut) async throws {
        try await PipelineFixture.with { fixture in
            let (url, size) = try Self.serve(fixture)
            let sent = size * 6 / 10
            fixture.server.setBehavior("/photo.jpg", cut.behavior(sending: sent))
            let clock = ManualClock()
            let pipeline = try Self.pipeline(fixture, kind, clock: clock)
            let result = await drive(clock, by: .seconds(60), until: Task { try await pipeline.image(for: ImageRequest(url: url)) })
            let error = try #require(#expect(throws: ImagePipeline.Error.self) { try result.get() })
            #expect(error.attempts == 3, "\(error)")
            #expect(error.isTransient, "\(error)")
            #expect(error.code != "decoding_failed", "\(error)")
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 3)
            await pipeline.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 0)
            #expect(pipeline.cachedImage(for: ImageRequest(url: url)) == nil)
        }
    }

    @Test(arguments: LoaderKind.allCases, Cut.allCases)
    func aCutOffAttemptIsRetriedAndTheWholeBodyDecodesClean(_ kind: LoaderKind, _ cut: Cut) async throws {
        try await PipelineFixture.with { fixture in
            let (url, size) = try Self.serve(fixture)
            fixture.server.setBehavior("/photo.jpg", .sequence([cut.behavior(sending: size / 2)]))
            let clock = ManualClock()
            let pipeline = try Self.pipeline(fixture, kind, clock: clock)
            let result = await drive(clock, by: .seconds(60), until: Task { try await pipeline.image(for: ImageRequest(url: url)) })
            let response = try result.get()
            #expect(response.timing.attempts == 2)
            #expect(response.repairs.isEmpty, "\(response.repairs)")
            #expect(response.container.pixelSize == PixelSize(width: 320, height: 240))
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 2)
        }
    }

    /// The same bytes, cut at the source and served whole: decoded leniently, with its repairs.
    @Test(arguments: LoaderKind.allCases, [false, true])
    func aFileDamagedAtTheSourceDecodesLeniently(_ kind: LoaderKind, chunked: Bool) async throws {
        try await PipelineFixture.with { fixture in
            let whole = try Fixtures.jpeg(width: 320, height: 240, seed: 7)
            fixture.server.set("/cut.jpg", data: whole.prefix(whole.count * 6 / 10), contentType: "image/jpeg")
            if chunked { fixture.server.setBehavior("/cut.jpg", .chunked(chunkSize: 1_000)) }
            let url = fixture.server.url(for: "/cut.jpg")
            let pipeline = try Self.pipeline(fixture, kind, clock: ManualClock())
            let response = try await pipeline.image(for: ImageRequest(url: url))
            #expect(response.container.pixelSize == PixelSize(width: 320, height: 240))
            #expect(!response.repairs.isEmpty)
            #expect(fixture.server.requestCount(for: "/cut.jpg") == 1)
        }
    }
}
