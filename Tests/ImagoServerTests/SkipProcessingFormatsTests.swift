#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago
@testable import ImagoServer

/// imgproxy's `IMGPROXY_SKIP_PROCESSING_FORMATS` and its rule for `skp` alike: a source in a
/// listed format is answered as it came when the path asks no output format or the source's own;
/// a path that asks another format gets it processed; a path's `skp` replaces the server's list.
@Suite struct SkipProcessingFormatsTests {
    @Test func readsImgproxysNames() throws {
        #expect(try ServeEnvironment(["IMGPROXY_SKIP_PROCESSING_FORMATS": "jpg, png,PNG, gif"]).skipProcessingFormats == [.jpeg, .png, .gif])
        #expect(try ServeEnvironment([:]).skipProcessingFormats == nil)
        #expect {
            _ = try ServeEnvironment(["IMGPROXY_SKIP_PROCESSING_FORMATS": "png,tga"])
        } throws: { error in
            (error as? ServeEnvironmentError)?.variable == "IMGPROXY_SKIP_PROCESSING_FORMATS" && "\(error)".contains("tga")
        }
    }

    @Test func listedSourcesAreAnsweredAsTheyCame() async throws {
        let png = try PNGEncoder().encode(ProxyOptionsTests.quadrants())
        try await ProxyOptionsTests.withProxy({ configuration in
            try ServeEnvironment(["IMGPROXY_SKIP_PROCESSING_FORMATS": "png"]).apply(to: &configuration)
        }) { proxy, origin in
            origin.set("/p.jpg", data: try Fixtures.jpeg(width: 80, height: 60, seed: 4), contentType: "image/jpeg")
            let source = origin.url(for: "/q.png")
            for options in ["w:50", "w:50/f:png"] {
                let skipped = await proxy.respond(path: ServerTests.path(options, source))
                #expect(skipped.status == 200)
                #expect(skipped.body == png, "\(options): the source's bytes")
                #expect(skipped.header("Content-Type") == "image/png")
            }
            // Another output format is processed, as imgproxy does.
            let converted = await proxy.respond(path: ServerTests.path("w:50/f:jpeg", source))
            #expect(converted.header("Content-Type") == "image/jpeg")
            #expect(ServerTests.size(of: converted.body) == PixelSize(width: 50, height: 38))
            // A path's own list replaces the server's.
            let replaced = await proxy.respond(path: ServerTests.path("w:50/skp:jpg", source))
            #expect(ServerTests.size(of: replaced.body) == PixelSize(width: 50, height: 38))
            // A format not listed is processed.
            let jpeg = await proxy.respond(path: ServerTests.path("w:40", origin.url(for: "/p.jpg")))
            #expect(ServerTests.size(of: jpeg.body) == PixelSize(width: 40, height: 30))
        }
    }

    /// `skp` follows the same rule: skipped for no format or the source's own, processed for another.
    @Test func skpAsksTheSameFormatOrNone() async throws {
        try await ProxyOutputOptionsTests.withPicture { proxy, origin, jpeg in
            let source = origin.url(for: "/p.jpg")
            let same = await proxy.respond(path: ServerTests.path("w:50/skp:jpg/f:jpg", source))
            #expect(same.body == jpeg)
            let other = await proxy.respond(path: ServerTests.path("w:50/skp:jpg/f:png", source))
            #expect(other.header("Content-Type") == "image/png")
            #expect(ServerTests.size(of: other.body) == PixelSize(width: 50, height: 38))
        }
    }
}
#endif
