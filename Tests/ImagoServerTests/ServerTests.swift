#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago
@testable import ImagoServer

/// The server in-process on loopback, its sources on a loopback `TestServer`.
@Suite struct ServerTests {
    /// Unsigned, private networks allowed (the origin is on 127.0.0.1).
    static var local: ImageProxyConfiguration {
        ImageProxyConfiguration(sourcePolicy: SourcePolicy(allowsPrivateNetworks: true))
    }

    static func path(_ options: String, _ source: URL, format: String? = nil, base64: Bool = false) -> String {
        "/insecure" + URLSigner.unsignedPart(
            options: options.split(separator: "/").map(String.init), source: source, format: format, encodeSource: base64)
    }

    static func size(of data: Data) -> PixelSize? {
        ImageHeader.probe(data).map { PixelSize(width: $0.width, height: $0.height) }
    }

    @Test(arguments: [
        ("rs:fit:200:200", 200, 150, "image/jpeg"),
        ("rs:fill:200:200", 200, 200, "image/jpeg"),
        ("rs:force:100:290", 100, 290, "image/jpeg"),
        ("w:100", 100, 75, "image/jpeg"),
        ("h:150", 200, 150, "image/jpeg"),
        ("rs:fit:100:100/dpr:2", 200, 150, "image/jpeg"),
        ("rs:fill:50:50/dpr:1.5", 75, 75, "image/jpeg"),
        ("rs:fit:800:800", 400, 300, "image/jpeg"),
        ("rs:fit:800:800:1", 800, 600, "image/jpeg"),
        ("", 400, 300, "image/jpeg"),
        ("w:40/f:png", 40, 30, "image/png"),
        ("w:40/f:jpeg/q:50", 40, 30, "image/jpeg"),
    ])
    func appliesEveryOption(options: String, width: Int, height: Int, contentType: String) async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.set("/a.jpg", data: try Fixtures.jpeg(width: 400, height: 300, seed: 1), contentType: "image/jpeg")
        try await withServer(Self.local) { server in
            let reply = try await server.get(Self.path(options, origin.url(for: "/a.jpg")))
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
            #expect(reply.headers["content-type"] == contentType)
            #expect(reply.headers["content-length"] == "\(reply.body.count)")
            #expect(Self.size(of: reply.body) == PixelSize(width: width, height: height))
        }
    }

    @Test func extensionsAndBothSourceFormsAgree() async throws {
        try await withOrigin { origin, server in
            let source = origin.url(for: "/a.jpg")
            let plain = try await server.get(Self.path("w:50", source, format: "png"))
            let encoded = try await server.get(Self.path("w:50", source, format: "png", base64: true))
            #expect(plain.headers["content-type"] == "image/png")
            #expect(encoded.body == plain.body)
        }
    }

    @Test func answersHeadAsGetWithoutTheBody() async throws {
        try await withOrigin { origin, server in
            let path = Self.path("w:50", origin.url(for: "/a.jpg"))
            let head = try await server.get(path, method: .HEAD)
            let get = try await server.get(path)
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.headers["content-type"] == "image/jpeg")
            #expect(head.headers["content-length"] == "\(get.body.count)")
            #expect(head.headers["etag"] == get.headers["etag"])
            #expect(try await server.get("/healthz", method: .HEAD).status == 200)
            // Other methods have no route.
            #expect(try await server.get(path, method: .POST).status == 404)
        }
    }

    /// Progressive when configured (`IMGPROXY_JPEG_PROGRESSIVE`; baseline by default, as imgproxy).
    @Test func servesProgressiveJPEG() async throws {
        var configuration = Self.local
        configuration.encoderSettings.jpegProgressive = true
        try await withOrigin(configuration) { origin, server in
            let reply = try await server.get(Self.path("w:200/f:jpeg", origin.url(for: "/a.jpg")))
            #expect(reply.headers["content-type"] == "image/jpeg")
            #expect(JPEGScanCounter.scanCount(of: reply.body, stoppingAfter: 100) > 1, "a progressive JPEG has several scans")
        }
    }

    @Test func qualityChangesTheBytes() async throws {
        try await withOrigin { origin, server in
            let low = try await server.get(Self.path("w:200/q:10/f:jpeg", origin.url(for: "/a.jpg")))
            let high = try await server.get(Self.path("w:200/q:95/f:jpeg", origin.url(for: "/a.jpg")))
            #expect(low.status == 200 && high.status == 200)
            #expect(low.body.count < high.body.count)
        }
    }

    @Test func backgroundFillsTransparencyInJPEG() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        let clear = try PNGEncoder().encode(Bitmap(width: 40, height: 40, fill: RGBA(0, 0, 0, 0)))
        origin.set("/clear.png", data: clear, contentType: "image/png")
        try await withServer(Self.local) { server in
            let auto = try await server.get(Self.path("w:20", origin.url(for: "/clear.png")))
            #expect(auto.headers["content-type"] == "image/png", "auto keeps alpha as PNG")
            let reply = try await server.get(Self.path("w:20/bg:ff0000/f:jpeg", origin.url(for: "/clear.png")))
            #expect(reply.status == 200)
            let decoded = try ImageDecoder().decode(reply.body, context: DecodingContext(format: .jpeg)).bitmap()
            let pixel = decoded[10, 10]
            #expect(pixel.r > 240 && pixel.g < 15 && pixel.b < 15, "\(pixel)")
        }
    }

    @Test func negotiatesTheFormatByAccept() async throws {
        try await withOrigin { origin, server in
            // libwebp is linked on Linux: WebP output is always there, never a skipped branch.
            #expect(server.proxy.canWriteWebP)
            let path = Self.path("w:50", origin.url(for: "/a.jpg"))
            let browser = try await server.get(path, headers: ["Accept": "image/webp,*/*"])
            let old = try await server.get(path, headers: ["Accept": "image/png,*/*"])
            #expect(browser.headers["vary"] == "Accept" && old.headers["vary"] == "Accept")
            #expect(old.headers["content-type"] == "image/jpeg")
            #expect(browser.headers["content-type"] == "image/webp")
            #expect(browser.headers["etag"] != old.headers["etag"], "each negotiated variant has its own ETag")
            let fixed = try await server.get(Self.path("w:50/f:jpeg", origin.url(for: "/a.jpg")), headers: ["Accept": "image/webp"])
            #expect(fixed.headers["vary"] == nil)
            #expect(fixed.headers["content-type"] == "image/jpeg")
            let webp = try await server.get(Self.path("w:50/f:webp", origin.url(for: "/a.jpg")))
            #expect(webp.status == 200 && webp.headers["content-type"] == "image/webp")
            for reply in [browser, webp] {
                #expect(reply.body.prefix(4) == Data("RIFF".utf8) && reply.body.dropFirst(8).prefix(4) == Data("WEBP".utf8))
                let decoded = try ImageDecoder().decode(reply.body, context: DecodingContext(format: .webp)).bitmap()
                #expect(decoded.width == 50, "a WebP of the requested width, not the source's")
            }
        }
    }

    @Test func answersIfNoneMatchWith304() async throws {
        try await withOrigin { origin, server in
            let path = Self.path("w:50", origin.url(for: "/a.jpg"))
            let first = try await server.get(path)
            let etag = try #require(first.headers["etag"])
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
            #expect(first.headers["cache-control"] == "public, max-age=3600")
            let again = try await server.get(path, headers: ["If-None-Match": "\"other\", \(etag)"])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            #expect(again.headers["etag"] == etag)
            let other = try await server.get(path, headers: ["If-None-Match": "\"other\""])
            #expect(other.status == 200 && other.body == first.body)
            #expect(origin.requestCount(for: "/a.jpg") == 1, "the source is fetched once")
        }
    }

    @Test func signedServerChecksSignatures() async throws {
        let signer = try URLSigner(hexKey: String(repeating: "0123456789abcdef", count: 4), hexSalt: "fedcba")
        var configuration = Self.local
        configuration.signer = signer
        try await withOrigin(configuration) { origin, server in
            let source = origin.url(for: "/a.jpg")
            let good = signer.signedPath(options: ["rs:fit:100:100"], source: source)
            let ok = try await server.get(good)
            #expect(ok.status == 200)
            #expect(ok.headers["cache-control"] == "public, max-age=31536000")
            let missing = try await server.get(Self.path("rs:fit:100:100", source))
            #expect(missing.status == 403 && missing.errorCode == "signature_missing")
            let altered = try await server.get(good.replacingOccurrences(of: "rs:fit:100:100", with: "rs:fit:900:900"))
            #expect(altered.status == 403 && altered.errorCode == "signature_invalid")
            let otherKey = try URLSigner(hexKey: String(repeating: "aa", count: 32), hexSalt: "").signedPath(options: ["rs:fit:100:100"], source: source)
            let bad = try await server.get(otherKey)
            #expect(bad.status == 403 && bad.errorCode == "signature_invalid")
            let empty = try await server.get("/" + good.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true)[1])
            #expect(empty.status == 403 || empty.status == 400)
        }
    }

    /// Every error status with its code; the origin misbehaves on purpose.
    @Test func answersEveryErrorWithItsStatusAndCode() async throws {
        var configuration = Self.local
        configuration.loaderConfiguration.maximumBodySize = 200_000
        try await withOrigin(configuration) { origin, server in
            origin.set("/page.html", data: Data("<html></html>".utf8), contentType: "text/html")
            origin.setBehavior("/page.html", .html)
            origin.set("/broken.jpg", data: Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x41, count: 300), contentType: "image/jpeg")
            origin.setBehavior("/fails", .status(500))
            origin.set("/huge.png", data: Data(repeating: 0, count: 300_000), contentType: "image/png")
            let cases: [(String, Int, String)] = [
                ("/insecure/rs:wobble/plain/x", 400, "bad_options"),
                ("/insecure/w:5000" + "/plain/" + URLSigner.escaped(origin.url(for: "/a.jpg").absoluteString), 400, "too_large"),
                ("/insecure/w:10/!!!", 400, "bad_source"),
                ("/nothing", 400, "bad_path"),
                (Self.path("w:10", URL(string: "ftp://127.0.0.1/a.jpg")!), 403, "forbidden_source"),
                (Self.path("w:10", origin.url(for: "/missing.jpg")), 404, "source_not_found"),
                (Self.path("w:10", origin.url(for: "/page.html")), 415, "not_an_image"),
                (Self.path("w:10", origin.url(for: "/broken.jpg")), 422, "undecodable"),
                (Self.path("w:10", origin.url(for: "/huge.png")), 422, "source_too_large"),
                (Self.path("w:10", origin.url(for: "/fails")), 502, "source_failed"),
                (Self.path("w:10", URL(string: "http://127.0.0.1:1/a.jpg")!), 502, "source_failed"),
            ]
            for (path, status, code) in cases {
                let reply = try await server.get(path)
                #expect(reply.status == status, "\(path): \(String(decoding: reply.body, as: UTF8.self))")
                #expect(reply.errorCode == code, "\(path): \(String(decoding: reply.body, as: UTF8.self))")
                #expect(reply.headers["content-type"] == "application/json")
            }
        }
    }

    /// Its own server: the short download timeout would be a real-time bound on every other case.
    @Test func answersASlowSourceWith504() async throws {
        var configuration = Self.local
        configuration.loaderConfiguration.downloadTimeout = .seconds(1)
        try await withOrigin(configuration) { origin, server in
            origin.setBehavior("/a.jpg", .held)
            let reply = try await server.get(Self.path("w:10", origin.url(for: "/a.jpg")))
            #expect(reply.status == 504 && reply.errorCode == "source_timeout", "\(String(decoding: reply.body, as: UTF8.self))")
            origin.release("/a.jpg")
        }
    }

    @Test func shedsLoadWith429AndRetryAfter() async throws {
        var configuration = Self.local
        configuration.maximumConcurrentRequests = 1
        configuration.maximumQueuedRequests = 1
        configuration.retryAfterSeconds = 7
        try await withOrigin(configuration) { origin, server in
            origin.setBehavior("/a.jpg", .held)
            let first = Task { try await server.get(Self.path("w:10", origin.url(for: "/a.jpg"))) }
            #expect(await eventually { origin.requestCount(for: "/a.jpg") == 1 })
            let second = Task { try await server.get(Self.path("w:20", origin.url(for: "/a.jpg"))) }
            #expect(await eventually { server.proxy.admissionCounts.waiting == 1 })
            let shed = try await server.get(Self.path("w:30", origin.url(for: "/a.jpg")))
            #expect(shed.status == 429)
            #expect(shed.errorCode == "overloaded")
            #expect(shed.headers["retry-after"] == "7")
            origin.release("/a.jpg")
            #expect(try await first.value.status == 200)
            #expect(try await second.value.status == 200)
        }
    }

    @Test func refusesPrivateAddressesUnlessAllowed() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.set("/a.jpg", data: try Fixtures.jpeg(width: 40, height: 30), contentType: "image/jpeg")
        let resolver = StaticResolver(["images.test": [IPAddress("127.0.0.1")!]], fallback: SystemResolver())
        let strict = ImageProxyConfiguration()
        let viaName = URL(string: "http://images.test:\(origin.port)/a.jpg")!
        try await withServer(strict, resolver: resolver) { server in
            for source in [viaName, URL(string: "http://localhost:\(origin.port)/a.jpg")!, origin.url(for: "/a.jpg"),
                URL(string: "http://169.254.169.254/latest/meta-data/")!, URL(string: "http://[fd00:ec2::254]/")!]
            {
                let reply = try await server.get(Self.path("w:10", source))
                #expect(reply.status == 403 && reply.errorCode == "forbidden_source", "\(source)")
            }
        }
        #expect(origin.requestCount(for: "/a.jpg") == 0, "nothing reached the private origin")
        try await withServer(Self.local, resolver: resolver) { server in
            let reply = try await server.get(Self.path("w:10", viaName))
            #expect(reply.status == 200)
            let request = try #require(origin.requests(for: "/a.jpg").first)
            #expect(request.header("host") == "images.test:\(origin.port)", "the Host header names the source's host")
        }
    }

    @Test func checksEveryRedirectHop() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.set("/a.jpg", data: try Fixtures.jpeg(width: 40, height: 30), contentType: "image/jpeg")
        let resolver = StaticResolver(["origin.test": [IPAddress("127.0.0.1")!]], fallback: SystemResolver())
        origin.setBehavior("/away", .status(302, headers: ["Location": "http://127.0.0.1:\(origin.port)/a.jpg"]))
        origin.setBehavior("/within", .status(302, headers: ["Location": "/a.jpg"]))
        origin.setBehavior("/metadata", .status(302, headers: ["Location": "http://169.254.169.254/latest/"]))
        let configuration = ImageProxyConfiguration(
            sourcePolicy: SourcePolicy(allowedHosts: ["origin.test"], allowsPrivateNetworks: true))
        try await withServer(configuration, resolver: resolver) { server in
            let base = "http://origin.test:\(origin.port)"
            let within = try await server.get(Self.path("w:10", URL(string: base + "/within")!))
            #expect(within.status == 200)
            let away = try await server.get(Self.path("w:10", URL(string: base + "/away")!))
            #expect(away.status == 403 && away.errorCode == "forbidden_source")
            let metadata = try await server.get(Self.path("w:10", URL(string: base + "/metadata")!))
            #expect(metadata.status == 403 && metadata.errorCode == "forbidden_source")
        }
        // The address check at every hop: only 127.0.0.1 is allowed among the non-public
        // addresses; redirects to another loopback address, by literal or by a name that
        // resolves to it, are refused before any connection.
        let resolving = StaticResolver(
            ["origin.test": [IPAddress("127.0.0.1")!], "inside.test": [IPAddress("127.0.0.2")!]], fallback: nil)
        origin.setBehavior("/literal", .status(302, headers: ["Location": "http://127.0.0.2:\(origin.port)/a.jpg"]))
        origin.setBehavior("/named", .status(302, headers: ["Location": "http://inside.test:\(origin.port)/a.jpg"]))
        origin.setBehavior("/fine", .status(302, headers: ["Location": "http://127.0.0.1:\(origin.port)/a.jpg"]))
        let oneAddress = ImageProxyConfiguration(sourcePolicy: SourcePolicy(allowedAddresses: [IPAddress("127.0.0.1")!]))
        try await withServer(oneAddress, resolver: resolving) { server in
            let base = "http://origin.test:\(origin.port)"
            let fine = try await server.get(Self.path("w:10", URL(string: base + "/fine")!))
            #expect(fine.status == 200)
            for hop in ["/literal", "/named"] {
                let reply = try await server.get(Self.path("w:10", URL(string: base + hop)!))
                #expect(reply.status == 403 && reply.errorCode == "forbidden_source", "\(hop)")
            }
        }
    }

    @Test func gracefulShutdownFinishesARequestInFlight() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.set("/a.jpg", data: try Fixtures.jpeg(width: 400, height: 300), contentType: "image/jpeg")
        origin.setBehavior("/a.jpg", .held)
        let server = try await RunningServer.start(Self.local)
        let inFlight = Task { try await server.get(Self.path("w:100", origin.url(for: "/a.jpg"))) }
        #expect(await eventually { origin.requestCount(for: "/a.jpg") == 1 })
        await server.group.triggerGracefulShutdown()
        try await Task.sleep(for: .milliseconds(200))
        origin.release("/a.jpg")
        let reply = try await inFlight.value
        #expect(reply.status == 200)
        #expect(Self.size(of: reply.body) == PixelSize(width: 100, height: 75))
        try await server.task.value  // the server stopped by itself after draining
        try await server.client.shutdown()
        await server.proxy.shutdown()
    }

    @Test func servesHealthAndMetrics() async throws {
        try await withOrigin { origin, server in
            _ = try await server.get(Self.path("w:10", origin.url(for: "/a.jpg")))
            _ = try await server.get(Self.path("w:10", origin.url(for: "/a.jpg")))
            let health = try await server.get("/healthz")
            #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self) == "ok\n")
            let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains("imago_serve_requests_total{status=\"200\"} 3"), "\(metrics)")
            #expect(metrics.contains("imago_serve_cache_hits_total{tier=\"network\"} 1"))
            #expect(metrics.contains("imago_serve_cache_hits_total{tier=\"response\"} 1"))
            #expect(metrics.contains("imago_serve_request_duration_seconds_bucket"))
            #expect(metrics.contains("imago_serve_source_bytes"))
        }
    }

    /// A server with `/a.jpg` (400x300) on a loopback origin.
    /// The colour fixtures of the library's tests (`Tests/ImagoTests/Fixtures/colour`).
    static let colourFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../ImagoTests/Fixtures/colour").standardizedFileURL

    /// A wide-gamut source (Adobe RGB, with its profile) comes out as the sRGB libvips'
    /// `thumbnail` makes of it, without a profile; `scp:0` keeps the profile, and so does a server
    /// that keeps profiles unless a URL says `scp:1`.
    @Test func convertsWideGamutSourcesToSRGBAsLibvipsDoes() async throws {
        let origin = try await TestServer.start()
        defer { Task { try? await origin.shutdown() } }
        let source = try Data(contentsOf: Self.colourFolder.appendingPathComponent("serve-source-adobergb.jpg"))
        origin.set("/adobe.jpg", data: source, contentType: "image/jpeg")
        let reference = try ImageDecoder.decode(
            Data(contentsOf: Self.colourFolder.appendingPathComponent("serve-source-adobergb.vips-thumbnail-256.png"))).bitmap()
        let url = origin.url(for: "/adobe.jpg")
        func check(_ reply: RunningServer.Reply, keeps: Bool, lossy: Bool = false, line: Int = #line) throws {
            #expect(reply.status == 200, "line \(line): \(String(decoding: reply.body, as: UTF8.self))")
            let details = try #require(ImageHeader.details(reply.body))
            if keeps {
                #expect(details.colorProfile?.name == "Compatible with Adobe RGB (1998)", "line \(line): \(String(describing: details.colorProfile))")
            } else {
                #expect(details.colorProfile == nil && details.colorDeclaration != "ICC profile", "line \(line)")
            }
            // Shown through its profile (if any), it is libvips' thumbnail; JPEG's own loss on a
            // 256-pixel photo (about 29 dB at q95) is more than the bound, so there it must only be
            // nearer than the kept pixels read as sRGB are.
            let shown = try ImageDecoder.decode(reply.body).bitmap()
            try #require(shown.width == reference.width && shown.height == reference.height, "\(shown) against \(reference)")
            let deltaE = ColorDifference.meanCIEDE2000(shown, reference)
            let psnr = ColorDifference.peakSignalToNoise(shown, reference)
            if lossy {
                let raw = try ImageDecoder.decode(reply.body, colorProfileHandling: .keep).bitmap()
                #expect(!keeps || ColorDifference.meanCIEDE2000(raw, reference) > deltaE + 0.5, "line \(line): ΔE \(deltaE)")
                #expect(deltaE < 3, "line \(line): ΔE \(deltaE) against libvips")
            } else {
                #expect(deltaE <= 1.5 || psnr >= 33, "line \(line): ΔE \(deltaE), \(psnr) dB against libvips")
            }
        }
        try await withServer(Self.local) { server in
            try check(try await server.get(Self.path("rs:fit:256:256/f:png", url)), keeps: false)
            try check(try await server.get(Self.path("rs:fit:256:256/f:png/scp:0", url)), keeps: true)
            try check(try await server.get(Self.path("rs:fit:256:256/f:webp/q:100/scp:0", url)), keeps: true)
            try check(try await server.get(Self.path("rs:fit:256:256/f:jpeg/q:95/scp:0", url)), keeps: true, lossy: true)
            try check(try await server.get(Self.path("rs:fit:256:256/f:jpeg/q:95", url)), keeps: false, lossy: true)
            // GIF has no profile: `scp:0` still converts, so the dithered palette is nearer
            // libvips' sRGB than the Adobe RGB pixels read as sRGB.
            let gif = try ImageDecoder.decode(try await server.get(Self.path("rs:fit:256:256/f:gif/scp:0", url)).body).bitmap()
            let kept = try ImageDecoder.decode(
                try await server.get(Self.path("rs:fit:256:256/f:png/scp:0", url)).body, colorProfileHandling: .keep).bitmap()
            // Compared at 32 pixels, where the dither's noise averages out and the gamut does not.
            let small = ImageProcessors.Resize(size: PixelSize(width: 32, height: 32), contentMode: .aspectFit)
            let (gifDelta, keptDelta) = (
                ColorDifference.meanCIEDE2000(try small.process(gif), try small.process(reference)),
                ColorDifference.meanCIEDE2000(try small.process(kept), try small.process(reference))
            )
            #expect(gifDelta < keptDelta, "ΔE \(gifDelta) (GIF) against \(keptDelta) (Adobe RGB read as sRGB)")
        }
        var keeping = Self.local
        keeping.stripsColorProfile = false
        try await withServer(keeping) { server in
            try check(try await server.get(Self.path("rs:fit:256:256/f:png", url)), keeps: true)
            try check(try await server.get(Self.path("rs:fit:256:256/f:png/scp:1", url)), keeps: false)
        }
    }

    func withOrigin(
        _ configuration: ImageProxyConfiguration = ServerTests.local, _ body: (TestServer, RunningServer) async throws -> Void
    ) async throws {
        let origin = try await TestServer.start()
        origin.set("/a.jpg", data: try Fixtures.jpeg(width: 400, height: 300, seed: 3), contentType: "image/jpeg")
        do {
            try await withServer(configuration) { server in try await body(origin, server) }
            try await origin.shutdown()
        } catch {
            try? await origin.shutdown()
            throw error
        }
    }
}
#endif
