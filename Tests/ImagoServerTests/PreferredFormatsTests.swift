#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_PREFERRED_FORMATS`: the format of a response whose path and client name
/// none is the source's own when preferred, else the first preferred that can carry the result
/// (alpha, animation), else the first; read from the environment as imgproxy reads it.
@Suite struct PreferredFormatsTests {
    @Test func theEnvironmentIsReadAsImgproxyReadsIt() throws {
        let environment = try ServeEnvironment(["IMGPROXY_PREFERRED_FORMATS": "webp, jpg,png,jxl,tiff,jpeg"])
        #expect(environment.preferredFormats == [.webp, .jpeg, .png, .jxl])
        #expect(environment.unwritablePreferredFormats == ["tiff"])
        var configuration = ImageProxyConfiguration()
        #expect(configuration.preferredFormats == [.jpeg, .png, .gif], "imgproxy's default")
        try environment.apply(to: &configuration)
        #expect(configuration.preferredFormats == [.webp, .jpeg, .png, .jxl])
        #expect(try ServeEnvironment([:]).preferredFormats == nil)
    }

    @Test(arguments: ["JPEG", "png,", "png,bogus", "ico", "heic,tiff"])
    func aListWithAnUnknownNameOrNothingWritableNamesItsVariable(value: String) {
        #expect {
            _ = try ServeEnvironment(["IMGPROXY_PREFERRED_FORMATS": value])
        } throws: { error in
            (error as? ServeEnvironmentError)?.variable == "IMGPROXY_PREFERRED_FORMATS"
        }
    }

    @Test func theChoiceFollowsTheSourceThenWhatTheResultNeeds() async throws {
        var configuration = ServerTests.local
        configuration.preferredFormats = [.jpeg, .png, .gif]
        let proxy = ImageProxy.testing(configuration)
        #expect(proxy.preferredFormat(source: .png, animated: false, transparent: false) == .png, "the source's own")
        #expect(proxy.preferredFormat(source: .jpeg, animated: false, transparent: true) == .jpeg, "the source's own, flattened")
        #expect(proxy.preferredFormat(source: .webp, animated: false, transparent: false) == .jpeg)
        #expect(proxy.preferredFormat(source: .webp, animated: false, transparent: true) == .png)
        #expect(proxy.preferredFormat(source: .webp, animated: true, transparent: false) == .gif)
        await proxy.shutdown()
        configuration.preferredFormats = [.jpeg, .png]
        let still = ImageProxy.testing(configuration)
        #expect(still.preferredFormat(source: .webp, animated: true, transparent: false) == .jpeg, "none animates: the first")
        #expect(!still.preferredFormatsAnimate)
        await still.shutdown()
    }

    @Test func anOpaquePNGStaysPNGAndAWebPSourceGetsTheFirstThatFits() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            let png = await proxy.respond(path: ServerTests.path("w:50", origin.url(for: "/q.png")))
            #expect(png.status == 200 && png.header("Content-Type") == "image/png", "imgproxy keeps a preferred source format")
            try #require(proxy.canWriteWebP, "this build writes WebP")
            let opaque = try ImageContainer(bitmap: Fixtures.picture(width: 40, height: 30), format: .png).encoded(as: .webp)
            let clear = try ImageContainer(bitmap: Fixtures.picture(width: 40, height: 30, transparent: true), format: .png)
                .encoded(as: .webp)
            origin.set("/o.webp", data: opaque, contentType: "image/webp")
            origin.set("/t.webp", data: clear, contentType: "image/webp")
            let jpeg = await proxy.respond(path: ServerTests.path("w:20", origin.url(for: "/o.webp")))
            #expect(jpeg.status == 200 && jpeg.header("Content-Type") == "image/jpeg")
            let alpha = await proxy.respond(path: ServerTests.path("w:20", origin.url(for: "/t.webp")))
            #expect(alpha.status == 200 && alpha.header("Content-Type") == "image/png")
            // The client's Accept still wins over the preferred formats (imgproxy's auto WebP).
            let negotiated = await proxy.respond(path: ServerTests.path("w:20", origin.url(for: "/q.png")), accept: "image/webp")
            #expect(negotiated.header("Content-Type") == "image/webp")
        }
    }

    @Test func theOperatorsListDecidesStillsAndAnimations() async throws {
        try await ProxyAnimationTests.withAnimations({ configuration in
            configuration.preferredFormats = [.jpeg, .webp]
        }) { proxy, origin, _ in
            try #require(proxy.canWriteWebP, "this build writes WebP")
            let png = await proxy.respond(path: ServerTests.path("w:50", origin.url(for: "/q.png")))
            #expect(png.status == 200 && png.header("Content-Type") == "image/jpeg", "PNG is not preferred; opaque: the first")
            let animated = await proxy.respond(path: ServerTests.path("w:50", origin.url(for: "/a.gif")))
            #expect(animated.status == 200 && animated.header("Content-Type") == "image/webp")
            #expect(try ImageDecoder.decode(animated.body).frames.count == ProxyAnimationTests.durations.count)
        }
        try await ProxyAnimationTests.withAnimations({ configuration in
            configuration.preferredFormats = [.png]
        }) { proxy, origin, _ in
            let still = await proxy.respond(path: ServerTests.path("w:50", origin.url(for: "/a.gif")))
            #expect(still.status == 200 && still.header("Content-Type") == "image/png")
            let frames = try ImageDecoder.decode(still.body).frames.count
            #expect(frames <= 1, "no preferred format animates: the first frame")
        }
    }
}
#endif
