#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago
@testable import ImagoServer

/// imgproxy's options end to end: a loopback origin, real images, the proxy's answer decoded.
@Suite struct ProxyOptionsTests {
    static let red = RGBA(230, 20, 20)
    static let green = RGBA(20, 200, 40)
    static let blue = RGBA(30, 40, 220)
    static let yellow = RGBA(240, 220, 20)

    /// 400x300, one colour a quadrant: red top-left, green top-right, blue bottom-left, yellow
    /// bottom-right.
    static func quadrants() -> Bitmap {
        var bitmap = Bitmap(width: 400, height: 300, fill: red)
        for y in 0..<300 {
            for x in 0..<400 where x >= 200 || y >= 150 {
                bitmap[x, y] = y < 150 ? green : (x < 200 ? blue : yellow)
            }
        }
        return bitmap
    }

    /// A proxy (configured by `configure`) and an origin serving `/q.png` (``quadrants()``).
    static func withProxy(
        _ configure: (inout ImageProxyConfiguration) throws -> Void = { _ in },
        _ body: (ImageProxy, TestServer) async throws -> Void
    ) async throws {
        let origin = try await TestServer.start()
        origin.set("/q.png", data: try PNGEncoder().encode(quadrants()), contentType: "image/png")
        var configuration = ServerTests.local
        try configure(&configuration)
        let proxy = ImageProxy.testing(configuration)
        do {
            try await body(proxy, origin)
        } catch {
            await proxy.shutdown()
            try? await origin.shutdown()
            throw error
        }
        await proxy.shutdown()
        try await origin.shutdown()
    }

    static func image(_ response: ProxyResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> Bitmap {
        try #require(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
        return try ImageDecoder.decode(response.body).bitmap()
    }

    /// Whether `pixel` is within `tolerance` of `color` in every channel.
    static func near(_ pixel: RGBA, _ color: RGBA, tolerance: Int = 12) -> Bool {
        abs(Int(pixel.r) - Int(color.r)) <= tolerance && abs(Int(pixel.g) - Int(color.g)) <= tolerance
            && abs(Int(pixel.b) - Int(color.b)) <= tolerance && abs(Int(pixel.a) - Int(color.a)) <= tolerance
    }

    @Test func rotatesClockwiseBeforeTheResize() async throws {
        try await Self.withProxy { proxy, origin in
            let source = origin.url(for: "/q.png")
            let turned = try Self.image(await proxy.respond(path: ServerTests.path("rot:90/f:png", source)))
            #expect(turned.width == 300 && turned.height == 400)
            #expect(Self.near(turned[10, 10], Self.blue) && Self.near(turned[290, 10], Self.red))
            let fitted = try Self.image(await proxy.respond(path: ServerTests.path("rot:270/rs:fit:150:150/f:png", source)))
            #expect(fitted.width == 113 && fitted.height == 150)
            #expect(Self.near(fitted[5, 5], Self.green))
        }
    }

    @Test(arguments: [
        ("c:200:150:nowe", red), ("c:200:150:soea", yellow), ("c:0.5:0.5:fp:0.75:0.25", green), ("g:sowe/c:200:150", blue),
        ("c:100:100:noea:20:0", green),
    ])
    func cropsWhereTheGravitySays(options: String, color: RGBA) async throws {
        try await Self.withProxy { proxy, origin in
            let cropped = try Self.image(await proxy.respond(path: ServerTests.path("\(options)/f:png", origin.url(for: "/q.png"))))
            #expect(cropped.allPixels.allSatisfy { Self.near($0, color) }, "\(options)")
        }
    }

    @Test func fillCutsWhereTheGravitySays() async throws {
        try await Self.withProxy { proxy, origin in
            let source = origin.url(for: "/q.png")
            let west = try Self.image(await proxy.respond(path: ServerTests.path("rs:fill:50:150/g:we/f:png", source)))
            #expect(west.width == 50 && west.height == 150)
            #expect(Self.near(west[10, 10], Self.red) && Self.near(west[10, 140], Self.blue) && Self.near(west[45, 10], Self.red))
            let east = try Self.image(await proxy.respond(path: ServerTests.path("rs:fill:50:150/g:ea/f:png", source)))
            #expect(Self.near(east[10, 10], Self.green) && Self.near(east[40, 140], Self.yellow))
            let focus = try Self.image(await proxy.respond(path: ServerTests.path("rs:fill:50:150/g:fp:0.55:0.5/f:png", source)))
            #expect(Self.near(focus[45, 10], Self.green) && Self.near(focus[2, 10], Self.red), "the cut straddles the middle")
        }
    }

    @Test func padsWithTheBackgroundOrTransparency() async throws {
        try await Self.withProxy { proxy, origin in
            let source = origin.url(for: "/q.png")
            let framed = try Self.image(await proxy.respond(path: ServerTests.path("w:100/pd:10:20/bg:ff00ff/f:png", source)))
            #expect(framed.width == 140 && framed.height == 95)
            #expect(framed[0, 0] == RGBA(255, 0, 255) && framed[139, 94] == RGBA(255, 0, 255) && framed[25, 5] == RGBA(255, 0, 255))
            #expect(Self.near(framed[22, 12], Self.red))
            let clear = await proxy.respond(path: ServerTests.path("w:100/pd:5/dpr:2", source))
            #expect(clear.header("Content-Type") == "image/png", "transparent padding: auto keeps alpha")
            let decoded = try Self.image(clear)
            #expect(decoded.width == 220 && decoded.height == 170 && decoded[0, 0].a == 0)
        }
    }

    @Test func extendsToTheAskedSize() async throws {
        try await Self.withProxy { proxy, origin in
            let source = origin.url(for: "/q.png")
            let extended = try Self.image(await proxy.respond(path: ServerTests.path("rs:fit:500:500/ex:1/bg:000000/f:png", source)))
            #expect(extended.width == 500 && extended.height == 500)
            #expect(extended[10, 10] == RGBA(0, 0, 0) && Self.near(extended[60, 110], Self.red) && Self.near(extended[440, 390], Self.yellow))
            let north = try Self.image(await proxy.respond(path: ServerTests.path("rs:fit:500:500:0:1:no/f:png", source)))
            #expect(Self.near(north[60, 10], Self.red) && north[60, 490].a == 0)
            let plain = try Self.image(await proxy.respond(path: ServerTests.path("rs:fit:500:500/f:png", source)))
            #expect(plain.width == 400 && plain.height == 300, "without extend, not enlarged")
        }
    }

    @Test func blurSoftensAndSharpenHardens() async throws {
        try await Self.withProxy { proxy, origin in
            let source = origin.url(for: "/q.png")
            let sharp = try Self.image(await proxy.respond(path: ServerTests.path("f:png", source)))
            let blurred = try Self.image(await proxy.respond(path: ServerTests.path("bl:4/f:png", source)))
            #expect(Self.near(sharp[199, 75], Self.red, tolerance: 2))
            #expect(!Self.near(blurred[199, 75], Self.red, tolerance: 40), "\(blurred[199, 75])")
            #expect(Self.near(blurred[100, 75], Self.red, tolerance: 2), "flat areas stay")
            let soft = try Self.image(await proxy.respond(path: ServerTests.path("bl:2/sh:1.5/f:png", source)))
            let softOnly = try Self.image(await proxy.respond(path: ServerTests.path("bl:2/f:png", source)))
            // Sharpening the blurred edge steepens it again.
            let step = { (image: Bitmap) in abs(Int(image[198, 75].g) - Int(image[201, 75].g)) }
            #expect(step(soft) > step(softOnly) + 10, "\(step(soft)) against \(step(softOnly))")
        }
    }

    @Test func expiredURLsAnswer404AndOthersAreCachedNoLongerThanTheyLive() async throws {
        try await Self.withProxy { proxy, origin in
            let source = origin.url(for: "/q.png")
            let expired = await proxy.respond(path: ServerTests.path("w:10/exp:1", source))
            #expect(expired.status == 404 && String(decoding: expired.body, as: UTF8.self).contains("\"expired\""))
            #expect(origin.requestCount(for: "/q.png") == 0, "refused before anything is fetched")
            let soon = Int(Date().timeIntervalSince1970) + 100
            let fresh = await proxy.respond(path: ServerTests.path("w:10/exp:\(soon)", source))
            #expect(fresh.status == 200)
            let maxAge = try #require(fresh.header("Cache-Control").flatMap { Int($0.split(separator: "=").last ?? "") })
            #expect(maxAge <= 100 && maxAge > 0)
            #expect(await proxy.respond(path: ServerTests.path("w:10/exp:0", source)).status == 200, "0: never expires")
        }
    }

    @Test func cacheBusterMakesANewResponseOfTheSameImage() async throws {
        try await Self.withProxy { proxy, origin in
            let source = origin.url(for: "/q.png")
            let first = await proxy.respond(path: ServerTests.path("w:50/cb:1", source))
            let again = await proxy.respond(path: ServerTests.path("w:50/cb:1", source))
            let busted = await proxy.respond(path: ServerTests.path("w:50/cb:2", source))
            #expect(first.body == busted.body && first.header("ETag") == busted.header("ETag"))
            #expect(first.body == again.body)
            let metrics = proxy.metrics.emit()
            #expect(metrics.contains("imago_serve_cache_hits_total{tier=\"response\"} 1"), "\(metrics)")
            // strip_metadata: outputs never carry metadata, so both answers are the same bytes.
            let kept = await proxy.respond(path: ServerTests.path("w:50/sm:0", source))
            #expect(kept.body == first.body)
        }
    }

    @Test func securityOptionsNeedTheServersConsentAndOnlyLowerItsLimits() async throws {
        try await Self.withProxy { proxy, origin in
            let refused = await proxy.respond(path: ServerTests.path("w:10/msr:1", origin.url(for: "/q.png")))
            #expect(refused.status == 403 && String(decoding: refused.body, as: UTF8.self).contains("forbidden_option"))
            #expect(await proxy.respond(path: ServerTests.path("w:10/msfs:100", origin.url(for: "/q.png"))).status == 403)
            #expect(await proxy.respond(path: ServerTests.path("w:10/mrd:5", origin.url(for: "/q.png"))).status == 403)
            #expect(origin.requestCount(for: "/q.png") == 0)
        }
        try await Self.withProxy({ $0.allowsSecurityOptions = true }) { proxy, origin in
            let source = origin.url(for: "/q.png")
            let tooMany = await proxy.respond(path: ServerTests.path("w:10/msr:0.1", source))  // 100,000 < 120,000 pixels
            #expect(tooMany.status == 422 && String(decoding: tooMany.body, as: UTF8.self).contains("source_too_large"))
            #expect(await proxy.respond(path: ServerTests.path("w:10/msr:0.2", source)).status == 200)
            let tooBig = await proxy.respond(path: ServerTests.path("w:10/msfs:100", source))
            #expect(tooBig.status == 422, "refused from its Content-Length")
            #expect(await proxy.respond(path: ServerTests.path("w:10/msfs:10000000", source)).status == 200)
            let capped = await proxy.respond(path: ServerTests.path("w:10/mrd:5/f:png", source))
            #expect(capped.status == 200 && ServerTests.size(of: capped.body).map { max($0.width, $0.height) } == 5)
        }
    }

    /// `max_src_file_size` stops a download while it streams: a chunked body that declares no
    /// length and never ends is refused as too large (422) once past the limit, not timed out (504).
    @Test func sourceFileSizeIsEnforcedWhileDownloading() async throws {
        try await Self.withProxy({
            $0.allowsSecurityOptions = true
            $0.loaderConfiguration.downloadTimeout = .seconds(60)
        }) { proxy, origin in
            origin.setBehavior("/endless.jpg", .endless(chunkSize: 1000))
            let limited = await proxy.respond(path: ServerTests.path("w:10/msfs:8000", origin.url(for: "/endless.jpg")))
            let message = String(decoding: limited.body, as: UTF8.self)
            #expect(limited.status == 422, "\(message)")
            // The path's limit, not the server's own (20 MiB), which an endless body also passes.
            #expect(message.contains("source_too_large") && message.contains("limit of 8000 bytes"), "\(message)")
        }
    }

    @Test func presetsFromTheConfiguration() async throws {
        try await Self.withProxy({
            $0.presets = try ProcessingPresets(definitions: ["tile=rs:fill:60:60/g:soea", "png=f:png"])
        }) { proxy, origin in
            let tile = try Self.image(await proxy.respond(path: ServerTests.path("pr:tile:png", origin.url(for: "/q.png"))))
            #expect(tile.width == 60 && tile.height == 60 && Self.near(tile[50, 50], Self.yellow))
            let unknown = await proxy.respond(path: ServerTests.path("pr:nope", origin.url(for: "/q.png")))
            #expect(unknown.status == 400 && String(decoding: unknown.body, as: UTF8.self).contains("bad_options"))
        }
        try await Self.withProxy({
            $0.presets = try ProcessingPresets(definitions: ["tile=rs:fill:60:60/g:nowe/f:png"], onlyPresets: true)
        }) { proxy, origin in
            let path = "/_/tile/plain/" + URLSigner.escaped(origin.url(for: "/q.png").absoluteString)
            let tile = try Self.image(await proxy.respond(path: path))
            #expect(tile.width == 60 && Self.near(tile[10, 10], Self.red))
            #expect(await proxy.respond(path: ServerTests.path("w:10", origin.url(for: "/q.png"))).status == 400)
        }
    }

    /// `g:sm` keeps the salient object of a photograph-like picture, wherever it is.
    @Test func smartGravityKeepsTheSalientObject() async throws {
        try await Self.withProxy { proxy, origin in
            var field = Bitmap(width: 900, height: 600, fill: RGBA(120, 124, 118))
            for y in 60..<240 { for x in 760..<880 { field[x, y] = (x / 10 + y / 10) % 2 == 0 ? RGBA(230, 30, 40) : RGBA(250, 210, 0) } }
            origin.set("/field.png", data: try PNGEncoder().encode(field), contentType: "image/png")
            let source = origin.url(for: "/field.png")
            let smart = try Self.image(await proxy.respond(path: ServerTests.path("rs:fill:200:200/g:sm/f:png", source)))
            let centre = try Self.image(await proxy.respond(path: ServerTests.path("rs:fill:200:200/f:png", source)))
            let colourful = { (image: Bitmap) in image.allPixels.filter { $0.r > 200 && $0.b < 80 }.count }
            // The object is 40x60 pixels at the output's scale; the centred cut misses it.
            #expect(colourful(smart) > 2000, "the object is in the smart crop")
            #expect(colourful(centre) < 200)
            let cropped = try Self.image(await proxy.respond(path: ServerTests.path("c:300:300:sm/f:png", source)))
            #expect(colourful(cropped) > 120 * 180 * 3 / 4)
        }
    }
}

extension Bitmap {
    /// Every pixel, row by row.
    fileprivate var allPixels: [RGBA] {
        (0..<height).flatMap { y in (0..<width).map { x in self[x, y] } }
    }
}
#endif
