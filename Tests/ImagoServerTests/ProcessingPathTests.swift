#if os(Linux)
import Foundation
import Imago
import Testing

@testable import ImagoServer

@Suite struct ProcessingPathTests {
    static let source = "http://example.com/images/a%20b.jpg?x=1"
    static let plain = "/plain/" + URLSigner.escaped(source)

    @Test func readsThePlainForm() throws {
        let path = try ProcessingPath.parse("/sig/rs:fill:300:200/dpr:2/q:80/bg:ff8000/plain/http%3A%2F%2Fexample.com%2Fa.jpg@webp")
        #expect(path.signature == "sig")
        #expect(path.signedPart == "/rs:fill:300:200/dpr:2/q:80/bg:ff8000/plain/http%3A%2F%2Fexample.com%2Fa.jpg@webp")
        #expect(path.source.absoluteString == "http://example.com/a.jpg")
        #expect(path.options.resizingType == .fill)
        #expect(path.options.pixelWidth == 600 && path.options.pixelHeight == 400)
        #expect(path.options.quality == 0.8)
        #expect(path.options.format == .webp)
        #expect(path.options.background == RGBA(255, 128, 0))
    }

    @Test func readsTheBase64FormSplitAcrossSegments() throws {
        let encoded = Base64URL.encode(Array(Self.source.utf8))
        let split = encoded.prefix(10) + "/" + encoded.dropFirst(10)
        let path = try ProcessingPath.parse("/_/w:100/\(split).png")
        #expect(path.source.absoluteString == Self.source)
        #expect(path.options.width == 100 && path.options.height == 0)
        #expect(path.options.format == .png)
    }

    @Test func keepsAnAtSignThatIsNoExtension() throws {
        let path = try ProcessingPath.parse("/_/plain/" + URLSigner.escaped("http://u@example.com/a@2x.jpg"))
        #expect(path.source.absoluteString == "http://u@example.com/a@2x.jpg")
        #expect(path.options.format == .auto)
    }

    @Test(arguments: [
        ("rs:fit:300:200", ProcessingOptions.ResizingType.fit, 300, 200, false),
        ("rs:force:10:20:1", .force, 10, 20, true),
        ("resize:fill::50", .fill, 0, 50, false),
        ("rt:fill/s:7:8:t", .fill, 7, 8, true),
        ("w:5/h:6/el:1", .fit, 5, 6, true),
        ("size:30", .fit, 30, 0, false),
    ])
    func readsResizeOptions(options: String, type: ProcessingOptions.ResizingType, width: Int, height: Int, enlarge: Bool) throws {
        let parsed = try ProcessingPath.parse("/_/\(options)\(Self.plain)").options
        #expect(parsed.resizingType == type)
        #expect(parsed.width == width && parsed.height == height && parsed.enlarge == enlarge)
    }

    @Test func readsStripColorProfile() throws {
        #expect(try ProcessingPath.parse("/_/scp:0\(Self.plain)").options.stripColorProfile == false)
        #expect(try ProcessingPath.parse("/_/strip_color_profile:true\(Self.plain)").options.stripColorProfile == true)
        #expect(try ProcessingPath.parse("/_/w:5\(Self.plain)").options.stripColorProfile == nil)
        #expect(try ProcessingPath.parse("/_/scp:0\(Self.plain)").options.canonical.contains("scp:0"))
    }

    @Test(arguments: [
        ("/", "bad_path"), ("/sig", "bad_path"), ("/sig/rs:fit:1:1", "bad_path"),
        ("/sig/rs:wobble:1:1/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/w:-1/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/w:100001/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/w:99999999999999999999/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/dpr:0/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/dpr:nan/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/dpr:9/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/q:101/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/f:bmp/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/bg:12345/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/bg:1:2:300/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/zz:1/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/scp:maybe/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/scp:1:0/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/rs:fit:1:1:1:1:1/plain/http%3A%2F%2Fa.b%2Fc", "bad_options"),
        ("/sig/plain/%zz", "bad_source"),
        ("/sig/plain/not-a-url", "bad_source"),
        ("/sig/!!!!", "bad_source"),
        ("/sig/aGVsbG8.bmp", "bad_options"),
        ("/sig/aGVsbG8", "bad_source"),
    ])
    func refusesMalformedPaths(path: String, code: String) {
        #expect(throws: ProcessingPathError.self) { try ProcessingPath.parse(path) }
        do {
            _ = try ProcessingPath.parse(path)
        } catch {
            #expect(error.code == code, "\(path): \(error)")
        }
    }

    @Test func refusesAnOverlongPath() {
        let path = "/sig/" + String(repeating: "w:1/", count: 3000) + "plain/x"
        #expect(throws: ProcessingPathError.self) { try ProcessingPath.parse(path) }
    }

    @Test func canonicalTextSeparatesDifferentOptions() throws {
        let a = try ProcessingPath.parse("/_/rs:fit:10:20\(Self.plain)").options
        let b = try ProcessingPath.parse("/_/w:10/h:20\(Self.plain)").options
        let c = try ProcessingPath.parse("/_/w:10/h:20/q:50\(Self.plain)").options
        #expect(a.canonical == b.canonical)
        #expect(a.canonical != c.canonical)
    }
}
#endif
