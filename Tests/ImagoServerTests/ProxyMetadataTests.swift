#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `strip_metadata` (`sm`, `IMGPROXY_STRIP_METADATA`) and `keep_copyright` (`kcr`,
/// `IMGPROXY_KEEP_COPYRIGHT`) on ImagoTests' `metadata/copyright.jpg` (EXIF Make, Orientation 6,
/// Artist, Copyright, GPS; XMP dc:rights, dc:creator, dc:subject, xmp:CreatorTool; IPTC 1:90,
/// 2:80, 2:25, 2:116): by default only the authorship survives, `sm:0` keeps everything, `kcr:0`
/// nothing.
@Suite struct ProxyMetadataTests {
    /// Read on use (a kept `Data?` is reported as a leak).
    static func fixture() throws -> Data {
        try Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("ImagoTests/Fixtures/metadata/copyright.jpg"))
    }

    static func withSource(
        _ configure: (inout ImageProxyConfiguration) throws -> Void = { _ in }, _ body: (ImageProxy, URL) async throws -> Void
    ) async throws {
        try await ProxyOptionsTests.withProxy(configure) { proxy, origin in
            origin.set("/m.jpg", data: try fixture(), contentType: "image/jpeg")
            try await body(proxy, origin.url(for: "/m.jpg"))
        }
    }

    /// The blocks of the response to `options` (`nil`: none).
    static func metadata(_ proxy: ImageProxy, _ options: String, _ source: URL) async throws -> ImageMetadata? {
        let response = await proxy.respond(path: ServerTests.path(options, source))
        try #require(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        return ImageMetadata.read(from: response.body)
    }

    @Test func byDefaultOnlyTheAuthorshipSurvives() async throws {
        try await Self.withSource { proxy, source in
            let source0 = try #require(ImageMetadata.read(from: try Self.fixture()))
            for options in ["rs:fit:20:20/f:jpg", "rs:fit:20:20/f:jpg/sm:1/kcr:1", "rs:fit:20:20/strip_metadata:t/f:jpg"] {
                let kept = try #require(try await Self.metadata(proxy, options, source), "\(options)")
                #expect(kept == source0.keepingCopyright(), "\(options)")
            }
        }
    }

    @Test func smZeroKeepsEverythingUpright() async throws {
        try await Self.withSource { proxy, source in
            let source0 = try #require(ImageMetadata.read(from: try Self.fixture()))
            let all = try #require(try await Self.metadata(proxy, "rs:fit:20:20/f:jpg/sm:0", source))
            #expect(all == source0.uprighted() && all.exif != source0.exif)
            for format in ["png", "webp"] {
                let kept = try #require(try await Self.metadata(proxy, "rs:fit:20:20/f:\(format)/sm:0", source), "\(format)")
                #expect(kept.exif == all.exif && kept.xmp == all.xmp && kept.iptc == nil, "\(format)")
            }
            let copyright = try #require(try await Self.metadata(proxy, "rs:fit:20:20/f:webp", source))
            #expect(copyright.exif == source0.keepingCopyright().exif && copyright.xmp == source0.keepingCopyright().xmp)
            let got1 = try await Self.metadata(proxy, "rs:fit:20:20/f:gif/sm:0", source)
            #expect(got1 == nil, "GIF carries none")
        }
    }

    @Test func kcrZeroKeepsNothing() async throws {
        try await Self.withSource { proxy, source in
            for format in ["jpg", "png", "webp"] {
                let got2 = try await Self.metadata(proxy, "rs:fit:20:20/f:\(format)/kcr:0", source)
                #expect(got2 == nil, "\(format)")
                let got3 = try await Self.metadata(proxy, "rs:fit:20:20/f:\(format)/keep_copyright:false/sm:1", source)
                #expect(got3 == nil)
            }
        }
    }

    /// The environment sets the defaults a path may override; imgproxy's defaults are both true.
    @Test func theEnvironmentSetsTheDefaults() async throws {
        #expect(ImageProxyConfiguration().stripsMetadata && ImageProxyConfiguration().keepsCopyright)
        let environment = try ServeEnvironment(["IMGPROXY_STRIP_METADATA": "false", "IMGPROXY_KEEP_COPYRIGHT": "0"])
        var configuration = ImageProxyConfiguration()
        try environment.apply(to: &configuration)
        #expect(!configuration.stripsMetadata && !configuration.keepsCopyright)
        #expect(throws: ServeEnvironmentError.self) { try ServeEnvironment(["IMGPROXY_KEEP_COPYRIGHT": "maybe"]) }
        let source0 = try #require(ImageMetadata.read(from: try Self.fixture()))
        try await Self.withSource({ $0.stripsMetadata = false }) { proxy, source in
            let got4 = try await Self.metadata(proxy, "rs:fit:20:20/f:jpg", source)
            #expect(got4 == source0.uprighted())
            let got5 = try await Self.metadata(proxy, "rs:fit:20:20/f:jpg/sm:1", source)
            #expect(got5 == source0.keepingCopyright())
        }
        try await Self.withSource({ $0.keepsCopyright = false }) { proxy, source in
            let got6 = try await Self.metadata(proxy, "rs:fit:20:20/f:jpg", source)
            #expect(got6 == nil)
            let got7 = try await Self.metadata(proxy, "rs:fit:20:20/f:jpg/kcr:1", source)
            #expect(got7 == source0.keepingCopyright())
        }
    }

    @Test func badArgumentsAnswer400() async throws {
        try await Self.withSource { proxy, source in
            for text in ["sm:2", "sm:x", "strip_metadata:1:1", "kcr:x", "keep_copyright:", "kcr:1:0"] {
                let response = await proxy.respond(path: ServerTests.path(text, source))
                #expect(response.status == 400, "\(text)")
            }
        }
    }

    /// libvips (the test venv's pyvips) reads the proxy's blocks as written: the default keeps
    /// EXIF's Copyright and Artist but not Make or the GPS IFD, and no XMP subject or IPTC keyword.
    @Test(.enabled(if: ExternalPrograms.runs(ExternalPrograms.testVenvPyvips)))
    func libvipsReadsWhatIsKept() async throws {
        let python = try #require(ExternalPrograms.testVenvPyvips, "make the test venv: Scripts/packages.sh's install_test_venv (pyvips, pyvips-binary)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-proxy-metadata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [String] = []
        try await Self.withSource { proxy, source in
            for (index, options) in ["rs:fit:20:20/f:jpg", "rs:fit:20:20/f:jpg/sm:0", "rs:fit:20:20/f:png/sm:0", "rs:fit:20:20/f:webp"].enumerated() {
                let response = await proxy.respond(path: ServerTests.path(options, source))
                try #require(response.status == 200)
                let file = folder.appendingPathComponent("out\(index)")
                try response.body.write(to: file)
                files.append(file.path)
            }
        }
        let script = """
            import json, sys, pyvips
            out = []
            for path in sys.argv[1:]:
                image = pyvips.Image.new_from_file(path)
                fields = image.get_fields()
                def text(name):
                    return image.get(name) if name in fields else None
                out.append({"copyright": text("exif-ifd0-Copyright"), "artist": text("exif-ifd0-Artist"),
                            "make": text("exif-ifd0-Make"), "gps": "exif-ifd3-GPSLatitudeRef" in fields,
                            "orientation": image.get("orientation") if "orientation" in fields else None,
                            "xmp": image.get("xmp-data").decode("utf-8", "replace") if "xmp-data" in fields else "",
                            "iptc": len(image.get("iptc-data")) if "iptc-data" in fields else 0})
            print(json.dumps(out))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script] + files
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "pyvips failed: \(String(decoding: data, as: UTF8.self))")
        let results = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        try #require(results.count == 4)
        for result in [results[0], results[3]] {
            #expect((result["copyright"] as? String)?.hasPrefix("(c) Imago Test") == true, "\(result)")
            #expect((result["artist"] as? String)?.hasPrefix("Ada Artist") == true, "\(result)")
            #expect(result["make"] is NSNull && result["gps"] as? Bool == false, "\(result)")
            let xmp = result["xmp"] as? String ?? ""
            #expect(xmp.contains("dc:rights") && !xmp.contains("dc:subject"), "\(result)")
        }
        #expect(results[0]["iptc"] as? Int ?? 0 > 0)
        for result in [results[1], results[2]] {
            #expect((result["make"] as? String)?.hasPrefix("Imago") == true && result["gps"] as? Bool == true, "\(result)")
            #expect(result["orientation"] as? Int == 1, "\(result)")
            #expect((result["xmp"] as? String ?? "").contains("dc:subject"), "\(result)")
        }
    }
}
#endif
