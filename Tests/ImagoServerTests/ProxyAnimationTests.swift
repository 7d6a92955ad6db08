#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// Animated GIF and WebP sources through the proxy: every frame rendered with the geometry of a
/// still and written as an animated GIF or WebP with its timings and loop count; imgproxy's
/// `max_animation_frames` and `max_animation_frame_resolution` (options and environment),
/// checked before anything is decoded.
@Suite struct ProxyAnimationTests {
    static let durations: [Duration] = [.milliseconds(60), .milliseconds(120), .milliseconds(200), .milliseconds(80)]
    static let loopCount = 3

    /// A proxy whose origin serves `/a.gif` and `/a.webp` (100x80, 4 frames, 3 plays), with
    /// `maximumAnimationFrames` 100 unless `configure` says otherwise.
    static func withAnimations(
        transparent: Bool = false, _ configure: (inout ImageProxyConfiguration) -> Void = { _ in },
        _ body: (ImageProxy, TestServer, _ sources: [String: Data]) async throws -> Void
    ) async throws {
        let sources = [
            "gif": try Fixtures.animatedGIF(width: 100, height: 80, durations: durations, loopCount: loopCount, transparent: transparent),
            "webp": try Fixtures.animatedWebP(width: 100, height: 80, durations: durations, loopCount: loopCount, transparent: transparent),
        ]
        try await ProxyOptionsTests.withProxy({ configuration in
            configuration.maximumAnimationFrames = 100
            configure(&configuration)
        }) { proxy, origin in
            origin.set("/a.gif", data: sources["gif"]!, contentType: "image/gif")
            origin.set("/a.webp", data: sources["webp"]!, contentType: "image/webp")
            try await body(proxy, origin, sources)
        }
    }

    /// Each frame of `source` rendered on its own through the proxy's renderer with `options`:
    /// the frame-by-frame reference.
    static func reference(_ source: Data, options: String) throws -> [Bitmap] {
        let parsed = try ProcessingOptionsTests.options(options)
        let decoded = try ImageDecoder.decode(source)
        let geometry = ProxyGeometry(
            source: decoded.pixelSize, options: parsed, maximumDimension: ServerTests.local.maximumOutputDimension)
        return try decoded.frames.map { frame in
            try ProxyRenderer(geometry: geometry, options: parsed).render(try frame.bitmap())
        }
    }

    @Test(arguments: ["gif", "webp"], ["gif", "webp"])
    func keepsEveryFrameTimingAndLoopCount(source: String, output: String) async throws {
        // Crop, fill with a gravity, rotation, mirroring, padding: each frame alike, on its canvas.
        let options = "c:90:70:nowe/rs:fill:48:30:0/g:ea/rot:90/fl:1:0/pd:2:3/bg:ff0000"
        try await Self.withAnimations { proxy, origin, sources in
            let response = await proxy.respond(path: ServerTests.path(options + "/f:\(output)", origin.url(for: "/a.\(source)")))
            try #require(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            #expect(response.header("Content-Type") == "image/\(output)")
            let decoded = try ImageDecoder.decode(response.body)
            #expect(decoded.format == (output == "gif" ? .gif : .webp))
            #expect(decoded.frames.count == Self.durations.count)
            #expect(decoded.frames.map(\.duration) == Self.durations)
            #expect(decoded.loopCount == Self.loopCount)
            // Turned before the resize (as imgproxy), then padded: 48x30 plus 3 + 3 and 2 + 2.
            #expect(decoded.pixelSize == PixelSize(width: 48 + 6, height: 30 + 4))
            let references = try Self.reference(try #require(sources[source]), options: options)
            for (index, frame) in decoded.frames.enumerated() {
                let bitmap = try frame.bitmap()
                let psnr = references.map { ColorDifference.peakSignalToNoise(bitmap, $0) }
                // Close to its own frame (the palette's dithering for GIF, lossy WebP's 4:2:0
                // chroma on a small picture with a red border: 22–24 dB), and clearly closer to
                // it than to any other frame.
                #expect(psnr[index] >= 20, "frame \(index + 1): \(psnr[index]) dB")
                for other in psnr.indices where other != index {
                    #expect(psnr[index] > psnr[other] + 3, "frame \(index + 1) is as near frame \(other + 1): \(psnr)")
                }
            }
        }
    }

    @Test func keepsTransparencyInEveryFrame() async throws {
        try await Self.withAnimations(transparent: true) { proxy, origin, _ in
            for output in ["gif", "webp"] {
                let response = await proxy.respond(path: ServerTests.path("rs:fit:50:40/f:\(output)", origin.url(for: "/a.gif")))
                let decoded = try ImageDecoder.decode(response.body)
                #expect(decoded.frames.count == Self.durations.count)
                for frame in decoded.frames {
                    let bitmap = try frame.bitmap()
                    #expect(bitmap[0, 0].a == 0, "\(output): the corners stay transparent")
                    #expect(bitmap[25, 20].a == 255)
                }
            }
        }
    }

    @Test func stillFormatsAndTheDefaultLimitGiveTheFirstFrame() async throws {
        try await Self.withAnimations { proxy, origin, sources in
            let reference = try Self.reference(try #require(sources["gif"]), options: "rs:fit:50:40")[0]
            for output in ["png", "jpeg"] {
                let response = await proxy.respond(path: ServerTests.path("rs:fit:50:40/f:\(output)", origin.url(for: "/a.gif")))
                let bitmap = try ProxyOptionsTests.image(response)
                #expect(ColorDifference.peakSignalToNoise(bitmap, reference) >= 28)
            }
        }
        // imgproxy's default IMGPROXY_MAX_ANIMATION_FRAMES is 1: a GIF out is the first frame alone,
        // and no other frame is decoded.
        try await Self.withAnimations({ $0.maximumAnimationFrames = ImageProxyConfiguration().maximumAnimationFrames }) {
            proxy, origin, _ in
            #expect(ImageProxyConfiguration().maximumAnimationFrames == 1)
            let response = await proxy.respond(path: ServerTests.path("rs:fit:50:40/f:gif", origin.url(for: "/a.webp")))
            let decoded = try ImageDecoder.decode(response.body)
            #expect(response.status == 200 && decoded.frames.isEmpty && decoded.format == .gif)
        }
    }

    @Test func noFormatWritesAnAnimatedGIF() async throws {
        try await Self.withAnimations { proxy, origin, _ in
            let response = await proxy.respond(path: ServerTests.path("rs:fit:50:40", origin.url(for: "/a.webp")))
            #expect(response.header("Content-Type") == "image/gif")
            let decoded = try ImageDecoder.decode(response.body)
            #expect(decoded.frames.count == Self.durations.count)
        }
    }

    @Test func maximumAnimationFramesKeepsTheFirstFrames() async throws {
        try await Self.withAnimations({ $0.allowsSecurityOptions = true }) { proxy, origin, _ in
            for (option, count) in [("maf:2", 2), ("max_animation_frames:3", 3), ("maf:1", 1), ("maf:50", 4)] {
                let response = await proxy.respond(path: ServerTests.path("\(option)/rs:fit:50:40/f:webp", origin.url(for: "/a.gif")))
                let decoded = try ImageDecoder.decode(response.body)
                #expect(decoded.frameCount == count, "\(option)")
                if count > 1 { #expect(decoded.frames.map(\.duration) == Array(Self.durations.prefix(count))) }
            }
        }
    }

    @Test func animationLimitsAreSecurityOptions() async throws {
        try await Self.withAnimations { proxy, origin, _ in
            for option in ["maf:2", "mafr:1"] {
                let response = await proxy.respond(path: ServerTests.path("\(option)/f:gif", origin.url(for: "/a.gif")))
                #expect(response.status == 403, "\(option)")
            }
        }
    }

    @Test(arguments: ["maf:0", "maf:-1", "maf:x", "maf:1.5", "maf:2:3", "max_animation_frames:", "mafr:-1", "mafr:abc", "max_animation_frame_resolution:1e3"])
    func refusesABadAnimationLimit(_ text: String) throws {
        try ProcessingOptionsTests.expectRefusalNamingTheOption(text)
    }

    @Test func parsesTheAnimationLimits() throws {
        let options = try ProcessingOptionsTests.options("maf:7/mafr:0.5/w:10")
        #expect(options.maximumAnimationFrames == 7 && options.maximumAnimationFramePixels == 500_000)
        #expect(options.canonical.contains("maf:7") && options.canonical.contains("mafr:500000"))
        #expect(try ProcessingOptionsTests.options("max_animation_frame_resolution:0").maximumAnimationFramePixels == 0)
    }

    /// imgproxy's rule: with more than one frame processed, each frame against `mafr` when set,
    /// else every processed frame's pixels together against `max_src_resolution`; refused from the
    /// container's own count, before any frame is decoded.
    @Test(arguments: ["gif", "webp"])
    func refusesAnAnimationOverItsLimitsBeforeDecoding(source: String) async throws {
        try await Self.withAnimations({ $0.allowsSecurityOptions = true }) { proxy, origin, _ in
            let url = origin.url(for: "/a.\(source)")  // 100x80 = 8,000 pixels a frame, 4 frames
            for options in ["maf:10/mafr:0.007", "maf:10/msr:0.03", "maf:4/msr:0.031999"] {
                let response = await proxy.respond(path: ServerTests.path("\(options)/rs:fit:50:40/f:gif", url))
                #expect(response.status == 422, "\(options)")
                #expect(String(decoding: response.body, as: UTF8.self).contains("animation frames"), "\(options)")
                #expect(proxy.decodeCount == 0, "\(options): nothing was decoded")
            }
            // Within: each frame under mafr (the total is not counted then), or 3 frames' 24,000
            // pixels under msr, or one frame (a still output: the source limit of one frame).
            for (options, frames) in [("maf:10/mafr:0.008/msr:0.01", 4), ("maf:3/msr:0.03", 3), ("maf:10/msr:0.03/f:png", 1)] {
                let path = options.hasSuffix("f:png") ? options : options + "/f:gif"
                let response = await proxy.respond(path: ServerTests.path("\(path)/rs:fit:50:40", url))
                try #require(response.status == 200, "\(options): \(String(decoding: response.body, as: UTF8.self))")
                let decoded = try ImageDecoder.decode(response.body)
                #expect(decoded.frameCount == frames, "\(options)")
            }
        }
    }

    @Test func readsImgproxysEnvironment() throws {
        let environment = try ServeEnvironment([
            "IMGPROXY_MAX_ANIMATION_FRAMES": "12", "IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "0.25",
        ])
        var configuration = ImageProxyConfiguration()
        try environment.apply(to: &configuration)
        #expect(configuration.maximumAnimationFrames == 12 && configuration.maximumAnimationFramePixels == 250_000)
        try ServeEnvironment(["IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "0"]).apply(to: &configuration)
        #expect(configuration.maximumAnimationFramePixels == nil)
        for (name, value) in [("IMGPROXY_MAX_ANIMATION_FRAMES", "0"), ("IMGPROXY_MAX_ANIMATION_FRAMES", "many"),
                              ("IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION", "-2")] {
            #expect { try ServeEnvironment([name: value]) } throws: { ($0 as? ServeEnvironmentError)?.variable == name }
        }
    }
}
#endif
