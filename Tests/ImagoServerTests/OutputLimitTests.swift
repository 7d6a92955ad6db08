#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago
@testable import ImagoServer

/// `--max-dimension` holds for the output whatever the options: no resize, a side of 0, a ratio
/// that rounds a side to 0, force with a side of 0. Sources larger than the limit on one side.
/// The limit works as imgproxy's `max_result_dimension` (`IMGPROXY_MAX_RESULT_DIMENSION`): the
/// whole result (extension and padding included) is scaled down together to fit.
@Suite struct OutputLimitTests {
    static let limit = 256

    static var configuration: ImageProxyConfiguration {
        ImageProxyConfiguration(sourcePolicy: SourcePolicy(allowsPrivateNetworks: true), maximumOutputDimension: limit)
    }

    /// (options, source width, source height, expected output width, expected output height).
    @Test(arguments: [
        // No resize: scaled down to fit the limit (the longer side becomes 256).
        ("", 1000, 64, 256, 16),
        ("f:png", 64, 1000, 16, 256),
        // A source within the limit is kept as it is.
        ("", 200, 100, 200, 100),
        // fit or fill with a side of 0: the free side is bounded too.
        ("rs:fit:100:0", 100, 1000, 26, 256),
        ("rs:fit:0:100", 1000, 100, 256, 26),
        ("rs:fill:0:100", 1000, 100, 256, 26),
        ("rs:fit:0:50:1", 1000, 100, 256, 26),
        // force with a side of 0 keeps the source's side; the limit then scales both sides.
        ("rs:force:100:0", 100, 1000, 26, 256),
        ("rs:force:0:40", 1000, 100, 256, 10),
        // A ratio that rounds a side to 0 does not turn it into "follow the aspect ratio" (the
        // ratio applies to the free side too, as imgproxy's).
        ("rs:force:1:0/dpr:0.4", 1000, 100, 1, 40),
        ("w:1/dpr:0.4", 1000, 100, 1, 1),
        // Enlarging a small source with one side given stays within the limit.
        ("rs:fit:0:200:1", 100, 10, 256, 26),
        // Padding and extension count: they shrink with the image.
        ("pd:20", 1000, 64, 256, 26),
        ("f:png/pd:10:20", 64, 1000, 26, 254),
        ("rs:fit:0:100/ex:1/pd:8", 1000, 100, 256, 29),
        ("rot:90/pd:3", 1000, 64, 18, 256),
    ])
    func everyOutputSideIsWithinTheLimit(
        options: String, sourceWidth: Int, sourceHeight: Int, width: Int, height: Int
    ) async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.set("/tall.png", data: try Fixtures.png(width: sourceWidth, height: sourceHeight, seed: 3), contentType: "image/png")
        try await withServer(Self.configuration) { server in
            let reply = try await server.get(ServerTests.path(options, origin.url(for: "/tall.png")))
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
            let size = try #require(ServerTests.size(of: reply.body))
            #expect(size == PixelSize(width: width, height: height))
            #expect(max(size.width, size.height) <= Self.limit)
        }
    }

    /// Sides the path gives above the limit are refused before anything is fetched.
    @Test(arguments: ["w:257", "rs:fill:100:300", "w:200/dpr:2", "w:240/pd:10", "pd:128", "h:100/pd:0:0:78:80/dpr:2"])
    func refusesGivenSidesAboveTheLimit(options: String) async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.set("/a.png", data: try Fixtures.png(width: 64, height: 64), contentType: "image/png")
        try await withServer(Self.configuration) { server in
            let reply = try await server.get(ServerTests.path(options, origin.url(for: "/a.png")))
            #expect(reply.status == 400)
            #expect(reply.errorCode == "too_large")
            #expect(origin.requestCount(for: "/a.png") == 0)
        }
    }

    /// The geometry and renderer alone, on bitmaps: each output side within its limit for every
    /// type, with padding and extension too.
    @Test(arguments: ProcessingOptions.ResizingType.allCases)
    func rendererBoundsEverySide(type: ProcessingOptions.ResizingType) throws {
        let source = Bitmap(width: 900, height: 30, fill: RGBA(10, 20, 30))
        for (width, height, enlarge) in [(0, 0, false), (0, 10, false), (10, 0, true), (0, 20, true), (90, 90, true)] {
            for padding in [nil, ProcessingOptions.Padding(top: 3, right: 4, bottom: 5, left: 6)] {
                var options = ProcessingOptions()
                (options.resizingType, options.width, options.height, options.enlarge) = (type, width, height, enlarge)
                options.padding = padding
                options.extend = ProcessingOptions.Extend()
                let geometry = ProxyGeometry(
                    source: PixelSize(width: source.width, height: source.height), options: options, maximumDimension: 100)
                let output = try ProxyRenderer(geometry: geometry, options: options).render(source)
                #expect(output.width <= 100 && output.height <= 100, "\(type) \(width)x\(height): \(output.width)x\(output.height)")
                #expect(PixelSize(width: output.width, height: output.height) == geometry.canvasSize)
            }
        }
    }
}
#endif
