#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `format_quality`, `max_bytes`, `skip_processing`, `raw`, `filename`,
/// `return_attachment`, `keep_copyright`, `preserve_hdr` and `enforce_thumbnail`: what each reads,
/// what it does to the response, and the 400 a bad argument gets.
@Suite struct ProxyOutputOptionsTests {
    /// A proxy whose origin also serves a 640x480 photograph-like JPEG at `/p.jpg`.
    static func withPicture(_ body: (ImageProxy, TestServer, Data) async throws -> Void) async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            let jpeg = try Fixtures.jpeg(width: 640, height: 480, seed: 7, quality: 0.95)
            origin.set("/p.jpg", data: jpeg, contentType: "image/jpeg")
            try await body(proxy, origin, jpeg)
        }
    }

    /// The encoded image `proxy` makes for `options` on `source` (the headers aside).
    static func produce(_ proxy: ImageProxy, _ options: String, _ source: URL, format: ImageFormat? = .jpeg) async throws -> EncodedImage {
        let parsed = try ProcessingPath.parse(ServerTests.path(options, source))
        return try await proxy.produce(parsed, format: format)
    }

    @Test func readsTheArguments() throws {
        let qualities = try ProcessingOptionsTests.options("fq:jpeg:70:webp:60").formatQualities
        #expect(qualities == [.jpeg: 0.7, .webp: 0.6])
        #expect(try ProcessingOptionsTests.options("format_quality:jpg:50:avif:0").formatQualities == [.jpeg: 0.5], "0: none")
        #expect(try ProcessingOptionsTests.options("mb:1000").maximumBytes == 1000)
        #expect(try ProcessingOptionsTests.options("max_bytes:0").maximumBytes == nil)
        #expect(try ProcessingOptionsTests.options("skp:png:gif/skip_processing:png").skipProcessingFormats == [.png, .gif])
        #expect(try ProcessingOptionsTests.options("raw:1").raw)
        #expect(try ProcessingOptionsTests.options("fn:holiday").filename == "holiday")
        #expect(try ProcessingOptionsTests.options("filename:\(Base64URL.encode(Array("été à Zürich".utf8))):1").filename == "été à Zürich")
        #expect(try ProcessingOptionsTests.options("fn:caf%C3%A9").filename == "café", "percent-decoded")
        #expect(try ProcessingOptionsTests.options("fn:").filename == nil)
        #expect(try ProcessingOptionsTests.options("att:1").returnAttachment)
        #expect(try ProcessingOptionsTests.options("return_attachment:0").returnAttachment == false)
        #expect(try ProcessingOptionsTests.options("kcr:1").keepCopyright == true)
        #expect(try ProcessingOptionsTests.options("preserve_hdr:t").preserveHDR == true)
        #expect(try ProcessingOptionsTests.options("eth:false").enforceThumbnail == false)
        // Those that change the response change the canonical text, so the cache keeps them apart.
        let plain = try ProcessingOptionsTests.options("w:10").canonical
        for text in ["w:10/fq:jpeg:5", "w:10/mb:500", "w:10/skp:png", "w:10/raw:1", "w:10/fn:a", "w:10/att:1"] {
            #expect(try ProcessingOptionsTests.options(text).canonical != plain, "\(text)")
        }
        #expect(try ProcessingOptionsTests.options("w:10/fn:a").canonical != ProcessingOptionsTests.options("w:10/fn:b").canonical)
    }

    @Test(arguments: [
        "fq:jpeg", "fq:jpeg:70:webp", "fq:tga:50", "fq:jpeg:101", "fq:jpeg:x", "mb:-1", "mb:abc", "mb:1.5", "skp:tga",
        "raw:2", "raw:1:1", "fn:a:yes", "fn:a:1:2", "fn:%%%:1", "fn:a%0D%0ASet-Cookie:0", "att:x", "kcr:x", "ph:2", "eth:maybe",
    ])
    func refusesBadArguments(text: String) throws {
        try ProcessingOptionsTests.expectRefusalNamingTheOption(text)
    }

    @Test func aBadArgumentIsA400FromTheServer() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            for text in ["fq:jpeg", "mb:-5", "skp:tga", "raw:x", "fn:a%0Ab", "att:2", "kcr:x", "ph:x", "eth:x"] {
                let response = await proxy.respond(path: ServerTests.path(text, origin.url(for: "/q.png")))
                #expect(response.status == 400, "\(text)")
                #expect(String(decoding: response.body, as: UTF8.self).contains("bad_options"), "\(text)")
            }
        }
    }

    /// `fq` sets the quality of its format; `q` wins over it; another format's `fq` does nothing.
    @Test func formatQualityAppliesToItsFormatUnlessQIsGiven() async throws {
        try await Self.withPicture { proxy, origin, _ in
            let source = origin.url(for: "/p.jpg")
            let low = try await Self.produce(proxy, "fq:jpeg:5", source).data
            let q5 = try await Self.produce(proxy, "q:5", source).data
            let usual = try await Self.produce(proxy, "fq:webp:5", source).data
            let plain = try await Self.produce(proxy, "w:640", source).data
            #expect(low == q5, "fq:jpeg:5 is q:5 for a JPEG output")
            #expect(usual == plain, "an fq for another format leaves JPEG at the default")
            #expect(low.count < plain.count / 2)
            let both = try await Self.produce(proxy, "q:90/fq:jpeg:5", source).data
            let q90 = try await Self.produce(proxy, "q:90", source).data
            #expect(both == q90, "q wins over fq")
        }
    }

    /// `max_bytes`: JPEG and WebP outputs come down to the limit and still decode; PNG is written once.
    @Test(arguments: [ImageFormat.jpeg, .webp])
    func maxBytesBringsALossyOutputWithinTheLimit(format: ImageFormat) async throws {
        try await Self.withPicture { proxy, origin, _ in
            let source = origin.url(for: "/p.jpg")
            let full = try await Self.produce(proxy, "q:95", source, format: format).data
            let limit = full.count / 4
            let fitted = try await Self.produce(proxy, "q:95/mb:\(limit)", source, format: format).data
            #expect(fitted.count <= limit, "\(fitted.count) > \(limit)")
            let bitmap = try ImageDecoder.decode(fitted).bitmap()
            #expect(bitmap.width == 640 && bitmap.height == 480)
            // A limit nothing reaches stops once a try was at quality 10 or lower (85, 21, then 5,
            // as imgproxy steps): still an image, no larger than quality 10's.
            let floor = try await Self.produce(proxy, "q:10", source, format: format).data
            let tiny = try await Self.produce(proxy, "mb:10", source, format: format).data
            #expect(tiny.count <= floor.count)
            let q5 = try await Self.produce(proxy, "q:5", source, format: format).data
            #expect(tiny == q5)
            #expect(try ImageDecoder.decode(tiny).bitmap().width == 640)
        }
    }

    @Test func maxBytesLeavesPNGAsItIs() async throws {
        try await Self.withPicture { proxy, origin, _ in
            let source = origin.url(for: "/p.jpg")
            let png = try await Self.produce(proxy, "w:100", source, format: .png).data
            let limited = try await Self.produce(proxy, "w:100/mb:100", source, format: .png).data
            #expect(limited == png)
        }
    }

    @Test func nextQualityStepsAsImgproxy() {
        #expect(ImageProxy.nextQuality(after: 80, size: 400, target: 100) == 20, "more than 3x: a quarter")
        #expect(ImageProxy.nextQuality(after: 80, size: 200, target: 100) == 40, "more than 1.5x: a half")
        #expect(ImageProxy.nextQuality(after: 80, size: 120, target: 100) == 60, "else three quarters")
        #expect(ImageProxy.nextQuality(after: 2, size: 101, target: 100) == 1, "always lower, never below 1")
    }

    /// `skp` answers the listed source formats' bytes as they came; others are processed.
    @Test func skipProcessingAnswersTheSourceBytes() async throws {
        try await Self.withPicture { proxy, origin, jpeg in
            let skipped = await proxy.respond(path: ServerTests.path("w:50/skp:jpg:png", origin.url(for: "/p.jpg")))
            #expect(skipped.status == 200)
            #expect(skipped.body == jpeg)
            #expect(skipped.header("Content-Type") == "image/jpeg")
            let processed = await proxy.respond(path: ServerTests.path("w:50/skp:png/f:jpeg", origin.url(for: "/p.jpg")))
            #expect(ServerTests.size(of: processed.body) == PixelSize(width: 50, height: 38))
        }
    }

    /// `raw` answers any source's bytes as they came, whatever the other options say.
    @Test func rawAnswersTheSourceBytes() async throws {
        try await ProxyOptionsTests.withProxy { proxy, origin in
            let bytes = Data("not an image at all".utf8)
            origin.set("/notes.txt", data: bytes, contentType: "text/plain")
            let png = await proxy.respond(path: ServerTests.path("raw:1/w:10/f:webp", origin.url(for: "/q.png")))
            #expect(png.status == 200)
            #expect(ServerTests.size(of: png.body) == PixelSize(width: 400, height: 300), "unprocessed")
            #expect(png.header("Content-Type") == "image/png")
            let text = await proxy.respond(path: ServerTests.path("raw:1", origin.url(for: "/notes.txt")))
            #expect(text.body == bytes)
            #expect(text.header("Content-Type") == "application/octet-stream", "never a type the bytes do not have")
        }
    }

    /// The disposition: the URL's name or `fn`, the output's extension, inline or attachment.
    @Test func contentDispositionNamesTheOutput() async throws {
        try await Self.withPicture { proxy, origin, _ in
            let source = origin.url(for: "/photos/p.jpg")
            origin.set("/photos/p.jpg", data: try Fixtures.jpeg(width: 64, height: 48), contentType: "image/jpeg")
            #expect(try await Self.produce(proxy, "w:10", source, format: .webp).contentDisposition == "inline; filename=\"p.webp\"")
            #expect(try await Self.produce(proxy, "fn:cat/att:1", source).contentDisposition == "attachment; filename=\"cat.jpg\"")
            let skipped = try await Self.produce(proxy, "skp:jpeg/fn:raw", source, format: .png)
            #expect(skipped.contentDisposition == "inline; filename=\"raw.jpg\"", "the bytes' own extension")
        }
    }

    @Test func contentDispositionEncodesWhatIsNotPlainASCII() throws {
        func value(_ name: String?, attachment: Bool = false, source: String = "https://example.com/a/b.png") throws -> String {
            var options = ProcessingOptions()
            options.filename = name
            options.returnAttachment = attachment
            return ContentDisposition(options: options, source: try #require(URL(string: source)), format: .png).headerValue
        }
        #expect(try value(nil) == "inline; filename=\"b.png\"")
        #expect(try value(nil, source: "https://example.com/") == "inline; filename=\"image.png\"")
        #expect(try value("résumé", attachment: true) == "attachment; filename=\"r_sum_.png\"; filename*=UTF-8''r%C3%A9sum%C3%A9.png")
        #expect(try value("a\"b\\c;d") == "inline; filename=\"a_b_c;d.png\"; filename*=UTF-8''a%22b%5Cc%3Bd.png")
        // A name with line breaks cannot reach the header (the parser refuses it); were it to, it is escaped.
        let injected = try value("x\r\nSet-Cookie: a=b")
        #expect(!injected.contains("\r") && !injected.contains("\n"))
    }
}
#endif
