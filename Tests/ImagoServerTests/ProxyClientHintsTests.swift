#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_ENABLE_CLIENT_HINTS` (`ImageProxyConfiguration.readsClientHints`): the
/// width and ratio the path leaves open come from `Sec-CH-Width`/`Width` and `Sec-CH-DPR`/`DPR`,
/// with imgproxy's figures (its `processing_options_test.go`: a width of 100 at a ratio of 2 is
/// 50 CSS pixels).
@Suite struct ProxyClientHintsTests {
    @Test func theEnvironmentTurnsThemOn() throws {
        var configuration = ImageProxyConfiguration()
        #expect(!configuration.readsClientHints)
        try ServeEnvironment(["IMGPROXY_ENABLE_CLIENT_HINTS": "1"]).apply(to: &configuration)
        #expect(configuration.readsClientHints)
        #expect {
            _ = try ServeEnvironment(["IMGPROXY_ENABLE_CLIENT_HINTS": "sure"])
        } throws: { error in
            (error as? ServeEnvironmentError)?.variable == "IMGPROXY_ENABLE_CLIENT_HINTS"
        }
    }

    /// The defaults hints give, header by header, as imgproxy's detector reads them.
    @Test(arguments: [
        ([:], 0, 1.0),
        (["Width": "100"], 100, 1.0),
        (["DPR": "2.0"], 0, 2.0),
        (["Width": "100", "DPR": "2"], 50, 2.0),
        (["Sec-CH-Width": "1024", "Width": "10"], 1024, 1.0),
        (["Sec-CH-DPR": "2.5", "DPR": "1.5"], 0, 2.5),
        (["Sec-CH-DPR": "-1", "DPR": "1.5"], 0, 1.5),  // an invalid hint is passed over
        (["DPR": "9"], 0, 1.0),  // above 8
        (["DPR": "abc", "Width": "-5"], 0, 1.0),
        (["Width": "1", "DPR": "4"], 0, 4.0),  // a quarter of a CSS pixel rounds to no width
        (["Width": "99999999"], 0, 1.0),  // more digits than a layout width has
    ] as [([String: String], Int, Double)])
    func hintedDefaults(headers: [String: String], width: Int, ratio: Double) {
        let options = ImageProxy.hintedDefaults { name in headers[name] }
        #expect(options.width == width && options.devicePixelRatio == ratio)
    }

    @Test func hintsSizeWhatThePathLeavesOpenAndTheResponseVariesWithThem() async throws {
        try await ProxyOptionsTests.withProxy({ $0.readsClientHints = true }) { proxy, origin in
            let source = origin.url(for: "/q.png")
            // 100 device pixels at a ratio of 2: 50 CSS pixels, drawn at 100.
            let hinted = await proxy.respond(
                path: ServerTests.path("f:png", source), clientHints: ["sec-ch-width": "100", "DPR": "2"])
            #expect(hinted.status == 200 && ServerTests.size(of: hinted.body)?.width == 100)
            #expect(hinted.header("Vary") == "Sec-CH-DPR, DPR, Sec-CH-Width, Width")
            // The path's own width and ratio win: 150 at 2 (the source is 400 wide).
            let own = await proxy.respond(
                path: ServerTests.path("w:150/dpr:2/f:png", source), clientHints: ["Width": "100", "DPR": "3"])
            #expect(ServerTests.size(of: own.body)?.width == 300)
            // With format negotiation, Accept comes first.
            let negotiated = await proxy.respond(path: ServerTests.path("w:10", source), clientHints: ["Width": "20"])
            #expect(negotiated.header("Vary") == "Accept, Sec-CH-DPR, DPR, Sec-CH-Width, Width")
            #expect(ServerTests.size(of: negotiated.body)?.width == 10)
        }
        try await ProxyOptionsTests.withProxy { proxy, origin in
            let plain = await proxy.respond(
                path: ServerTests.path("f:png", origin.url(for: "/q.png")), clientHints: ["Width": "100", "DPR": "2"])
            #expect(ServerTests.size(of: plain.body)?.width == 400, "hints are read only when enabled")
            #expect(plain.header("Vary") == nil)
        }
    }

    /// The route hands the request's hint headers to the proxy.
    @Test func theServerReadsTheHintHeaders() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.set("/q.png", data: try PNGEncoder().encode(ProxyOptionsTests.quadrants()), contentType: "image/png")
        var configuration = ServerTests.local
        configuration.readsClientHints = true
        try await withServer(configuration) { server in
            let reply = try await server.get(
                ServerTests.path("f:png", origin.url(for: "/q.png")), headers: ["Sec-CH-DPR": "2", "Width": "60"])
            #expect(reply.status == 200 && ServerTests.size(of: reply.body)?.width == 60)
            #expect(reply.headers["vary"] == "Sec-CH-DPR, DPR, Sec-CH-Width, Width")
        }
    }
}
#endif
