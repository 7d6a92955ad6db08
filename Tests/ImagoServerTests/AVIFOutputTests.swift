#if os(Linux)
import Foundation
import ImagoTestSupport
import Testing

@testable import Imago
@testable import ImagoServer

/// AVIF output: `f:avif`, the `.avif` and `@avif` suffixes, and `auto` preferring AVIF, then WebP,
/// then JPEG or PNG, by the client's `Accept`.
@Suite struct AVIFOutputTests {
    @Test(arguments: [
        ("image/avif,image/webp,image/apng,*/*;q=0.8", ImageFormat?.some(.avif)),
        ("image/webp,*/*", .some(.webp)),
        ("IMAGE/AVIF", .some(.avif)),
        ("image/png,*/*", nil),
        ("", nil),
    ])
    func negotiatesAVIFThenWebP(accept: String, format: ImageFormat?) {
        #expect(ImageProxy.negotiate(accept: accept, canWriteAVIF: true, canWriteWebP: true) == format)
        // A build that cannot write one skips it.
        #expect(ImageProxy.negotiate(accept: "image/avif,image/webp", canWriteAVIF: false, canWriteWebP: true) == .webp)
        #expect(ImageProxy.negotiate(accept: "image/avif", canWriteAVIF: false, canWriteWebP: true) == nil)
        #expect(ImageProxy.negotiate(accept: "image/avif,image/webp", canWriteAVIF: false, canWriteWebP: false) == nil)
    }

    @Test func aBuildWithoutAnEncoderAnswers400() {
        let refusal = ImageProxy.unsupportedOutput(.avif, canWriteWebP: true, canWriteAVIF: false)
        #expect(refusal?.status == 400 && refusal?.code == "unsupported_output")
        #expect(refusal?.message.contains("AVIF") == true)
        #expect(ImageProxy.unsupportedOutput(.avif, canWriteWebP: true, canWriteAVIF: true) == nil)
        #expect(ImageProxy.unsupportedOutput(.auto, canWriteWebP: false, canWriteAVIF: false) == nil)
    }

    @Test func writesAVIFThatDecodesAtTheAskedSize() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            #expect(proxy.canWriteAVIF, "libavif's encoder is linked on Linux: never a skipped branch")
            let source = origin.url(for: "/q.png")
            for path in [
                ServerTests.path("rs:fill:120:90/f:avif", source), ServerTests.path("rs:fill:120:90", source, format: "avif"),
                ServerTests.path("rs:fill:120:90", source, format: "avif", base64: true),
            ] {
                let reply = await proxy.respond(path: path)
                #expect(reply.status == 200 && reply.header("Content-Type") == "image/avif", "\(path)")
                #expect(reply.header("Vary") == nil)
                let decoded = try ImageDecoder.decode(reply.body).bitmap()
                #expect(decoded.width == 120 && decoded.height == 90)
                #expect(ProxyOptionsTests.near(decoded[20, 20], ProxyOptionsTests.red, tolerance: 16), "\(decoded[20, 20])")
            }
        }
    }

    @Test func autoAnswersByAcceptWithItsOwnETags() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            let path = ServerTests.path("w:80", origin.url(for: "/q.png"))
            let chrome = await proxy.respond(path: path, accept: "image/avif,image/webp,image/apng,*/*;q=0.8")
            let webpOnly = await proxy.respond(path: path, accept: "image/webp,*/*")
            let old = await proxy.respond(path: path, accept: "*/*")
            #expect(chrome.header("Content-Type") == "image/avif")
            #expect(webpOnly.header("Content-Type") == "image/webp")
            #expect(old.header("Content-Type") == "image/png", "a PNG source stays PNG, as imgproxy's preferred formats say")
            #expect(Set([chrome, webpOnly, old].compactMap { $0.header("ETag") }).count == 3)
            #expect([chrome, webpOnly, old].allSatisfy { $0.header("Vary") == "Accept" })
            let decoded = try ImageDecoder.decode(chrome.body).bitmap()
            #expect(decoded.width == 80)
            // Transparent output stays transparent in AVIF.
            let padded = await proxy.respond(path: ServerTests.path("w:80/pd:4", origin.url(for: "/q.png")), accept: "image/avif")
            #expect(padded.header("Content-Type") == "image/avif")
            let corner = try ImageDecoder.decode(padded.body).bitmap()[0, 0]
            #expect(corner.a < 10)
        }
    }
}
#endif
