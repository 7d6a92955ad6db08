#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago
@testable import ImagoServer

/// JPEG XL output: `f:jxl` and the `.jxl`/`@jxl` suffixes answer `image/jxl`; `auto` prefers it
/// over AVIF and WebP only when negotiated (`IMGPROXY_AUTO_JXL`), `IMGPROXY_ENFORCE_JXL` makes it
/// win over the path's format; `IMGPROXY_JXL_EFFORT` and the `jxl` quality (77 by default, as
/// imgproxy) reach the encoder.
@Suite struct JXLOutputTests {
    @Test(arguments: [
        ("image/jxl,image/avif,image/webp,*/*", true, ImageFormat?.some(.jxl)),
        ("image/jxl,image/avif,image/webp,*/*", false, .some(.avif)),
        ("IMAGE/JXL", true, .some(.jxl)),
        ("image/jxl", false, nil),
        ("image/webp,*/*", true, .some(.webp)),
        ("*/*", true, nil),
    ])
    func negotiatesJXLFirstWhenAsked(accept: String, canWriteJXL: Bool, format: ImageFormat?) {
        #expect(ImageProxy.negotiate(accept: accept, canWriteJXL: canWriteJXL, canWriteAVIF: true, canWriteWebP: true) == format)
    }

    @Test func aBuildWithoutAnEncoderAnswers400() {
        let refusal = ImageProxy.unsupportedOutput(.jxl, canWriteWebP: true, canWriteAVIF: true, canWriteJXL: false)
        #expect(refusal?.status == 400 && refusal?.code == "unsupported_output")
        #expect(refusal?.message.contains("JPEG XL") == true)
        #expect(ImageProxy.unsupportedOutput(.jxl, canWriteWebP: true, canWriteAVIF: true, canWriteJXL: true) == nil)
    }

    @Test func parsesFormatAndFormatQuality() throws {
        #expect(try ProcessingOptionsTests.options("f:jxl").format == .jxl)
        #expect(try ProcessingOptionsTests.options("ext:JXL").format == .jxl)
        #expect(try ProcessingOptionsTests.options("fq:jxl:55:webp:70").formatQualities == [.jxl: 0.55, .webp: 0.7])
        #expect(ProcessingOptionsParser.imageFormat(named: "jxl") == .jxl)
    }

    @Test func writesJXLThatDecodesAtTheAskedSize() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            #expect(proxy.canWriteJXL, "libjxl is linked on Linux: never a skipped branch")
            let source = origin.url(for: "/q.png")
            for path in [
                ServerTests.path("rs:fill:120:90/f:jxl", source), ServerTests.path("rs:fill:120:90", source, format: "jxl"),
                ServerTests.path("rs:fill:120:90", source, format: "jxl", base64: true),
            ] {
                let reply = await proxy.respond(path: path)
                #expect(reply.status == 200 && reply.header("Content-Type") == "image/jxl", "\(path)")
                #expect(reply.header("Vary") == nil)
                let decoded = try ImageDecoder.decode(reply.body).bitmap()
                #expect(decoded.width == 120 && decoded.height == 90)
                #expect(ProxyOptionsTests.near(decoded[20, 20], ProxyOptionsTests.red, tolerance: 16), "\(decoded[20, 20])")
            }
            // A lower `fq:jxl` writes fewer bytes.
            let low = await proxy.respond(path: ServerTests.path("w:120/f:jxl/fq:jxl:20", source))
            let high = await proxy.respond(path: ServerTests.path("w:120/f:jxl/fq:jxl:95", source))
            #expect(low.status == 200 && high.status == 200 && low.body.count < high.body.count, "\(low.body.count) vs \(high.body.count)")
        }
    }

    @Test func aJXLSourceAnsweredRawIsImageJXL() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            let jxl = try JXLEncoder(quality: 1).encode(Fixtures.picture(width: 8, height: 6))
            origin.set("/a.jxl", data: jxl, contentType: "application/octet-stream")
            let reply = await proxy.respond(path: ServerTests.path("raw:1", origin.url(for: "/a.jxl")))
            #expect(reply.status == 200 && reply.header("Content-Type") == "image/jxl" && reply.body == jxl)
        }
    }

    @Test func autoAnswersJXLOnlyWhenNegotiated() async throws {
        let chrome = "image/jxl,image/avif,image/webp,*/*;q=0.8"
        try await ProxyOptionsTests.withProxy { proxy, origin in
            let reply = await proxy.respond(path: ServerTests.path("w:80", origin.url(for: "/q.png")), accept: chrome)
            #expect(reply.header("Content-Type") == "image/avif", "IMGPROXY_AUTO_JXL is off by default, as in imgproxy")
        }
        try await ProxyOptionsTests.withProxy({ configuration in configuration.negotiatesJXL = true }) { proxy, origin in
            let path = ServerTests.path("w:80", origin.url(for: "/q.png"))
            let jxl = await proxy.respond(path: path, accept: chrome)
            let avif = await proxy.respond(path: path, accept: "image/avif,image/webp,*/*")
            #expect(jxl.header("Content-Type") == "image/jxl" && jxl.header("Vary") == "Accept")
            #expect(avif.header("Content-Type") == "image/avif")
            #expect(jxl.header("ETag") != avif.header("ETag"))
            let decoded = try ImageDecoder.decode(jxl.body).bitmap()
            #expect(decoded.width == 80)
            // Transparent output stays transparent in JPEG XL.
            let padded = await proxy.respond(path: ServerTests.path("w:80/pd:4", origin.url(for: "/q.png")), accept: "image/jxl")
            #expect(padded.header("Content-Type") == "image/jxl")
            let corner = try ImageDecoder.decode(padded.body).bitmap()[0, 0]
            #expect(corner.a < 10)
        }
    }

    @Test func anEnforcedJXLWinsOverThePathAndOverEnforcedAVIF() async throws {
        try await ProxyOptionsTests.withProxy({ $0.enforcesJXL = true; $0.enforcesAVIF = true }) { proxy, origin in
            let path = ServerTests.path("w:80/f:png", origin.url(for: "/q.png"))
            let jxl = await proxy.respond(path: path, accept: "image/jxl,image/avif,*/*")
            #expect(jxl.header("Content-Type") == "image/jxl" && jxl.header("Vary") == "Accept")
            let avif = await proxy.respond(path: path, accept: "image/avif,*/*")
            #expect(avif.header("Content-Type") == "image/avif")
            let png = await proxy.respond(path: path, accept: "*/*")
            #expect(png.header("Content-Type") == "image/png" && png.header("Vary") == "Accept")
        }
    }

    @Test func readsImgproxysJXLVariables() throws {
        var configuration = ImageProxyConfiguration()
        #expect(configuration.formatQualities == [.jxl: 0.77], "imgproxy's jxl=77")
        #expect(!configuration.negotiatesJXL && !configuration.enforcesJXL && configuration.encoderSettings.jxlEffort == 4)
        try ServeEnvironment([
            "IMGPROXY_AUTO_JXL": "true", "IMGPROXY_ENFORCE_JXL": "1", "IMGPROXY_JXL_EFFORT": "7",
            "IMGPROXY_FORMAT_QUALITY": "jxl=60,webp=79",
        ]).apply(to: &configuration)
        #expect(configuration.negotiatesJXL && configuration.enforcesJXL && configuration.encoderSettings.jxlEffort == 7)
        #expect(configuration.formatQualities == [.jxl: 0.6, .webp: 0.79])
        #expect(try ServeEnvironment(["IMGPROXY_PREFERRED_FORMATS": "jxl,jpeg"]).preferredFormats == [.jxl, .jpeg])
    }

    @Test(arguments: [
        ("IMGPROXY_JXL_EFFORT", "0"), ("IMGPROXY_JXL_EFFORT", "10"), ("IMGPROXY_JXL_EFFORT", "fast"),
        ("IMGPROXY_AUTO_JXL", "maybe"), ("IMGPROXY_ENFORCE_JXL", "2"),
    ])
    func aBadValueIsRefusedByName(variable: String, value: String) {
        #expect {
            _ = try ServeEnvironment([variable: value])
        } throws: { error in
            (error as? ServeEnvironmentError)?.variable == variable && "\(error)".contains(variable)
        }
    }

    /// libjxl's effort changes the bytes: the default is imgproxy's 4.
    @Test func effortChangesTheEncoding() throws {
        let standard = try EncoderSettingsTests.encoded(.jxl, [:])
        #expect(standard == (try EncoderSettingsTests.encoded(.jxl, ["IMGPROXY_JXL_EFFORT": "4"])))
        let fastest = try EncoderSettingsTests.encoded(.jxl, ["IMGPROXY_JXL_EFFORT": "1"])
        #expect(fastest != standard)
        #expect(try ImageDecoder.decode(fastest).bitmap().width == 64)
    }
}
#endif
