#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// The proxy keeps an HDR gain map (Ultra HDR JPEG by libultrahdr, from ImagoTests' fixtures): the
/// same geometry at the map's scale, written into JPEG output; `auto` answers JPEG for such a
/// source whatever `Accept` names; `gm:0` drops the map and negotiates as for any source.
@Suite struct ProxyGainMapTests {
    /// The 96x64 Ultra HDR fixture, whose 48x32 map has libultrahdr's metadata. Read on each use,
    /// not kept in a `static let`: LeakSanitizer cannot follow a global `Data?` (its spare-bit tag)
    /// and reported the kept copy as a leak.
    static var fixture: Data? {
        try? Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("ImagoTests/Fixtures/gainmap/ultrahdr-96x64.jpg"))
    }

    static func withGainMapSource(_ body: (ImageProxy, URL) async throws -> Void) async throws {
        let data = try #require(fixture, "the gain map fixture Tests/ImagoTests/Fixtures/gainmap/ultrahdr-96x64.jpg")
        try await ProxyOptionsTests.withProxy { proxy, origin in
            origin.set("/hdr.jpg", data: data, contentType: "image/jpeg")
            try await body(proxy, origin.url(for: "/hdr.jpg"))
        }
    }

    @Test func aJPEGOutputKeepsTheMapAtItsScaleWithItsMetadata() async throws {
        try await Self.withGainMapSource { proxy, source in
            let data = try #require(Self.fixture)
            let original = try #require(try ImageDecoder.decode(data).gainMap)
            let response = await proxy.respond(path: ServerTests.path("rs:fit:48:48/f:jpg", source))
            #expect(response.status == 200 && response.header("Content-Type") == "image/jpeg")
            let image = try ImageDecoder.decode(response.body)
            #expect(image.pixelSize == PixelSize(width: 48, height: 32))
            let map = try #require(image.gainMap, "the map is kept")
            #expect(map.pixelSize == PixelSize(width: 24, height: 16), "half the base's sides, as in the source")
            #expect(abs(map.metadata.alternateHeadroom - original.metadata.alternateHeadroom) < 1e-6)
            #expect(abs(map.metadata.channels[0].gainMapMax - original.metadata.channels[0].gainMapMax) < 1e-6)
            // The same geometry: a quarter turn turns the map too.
            let turned = try ImageDecoder.decode(await proxy.respond(path: ServerTests.path("rot:90/rs:fit:48:48/f:jpg", source)).body)
            #expect(turned.pixelSize == PixelSize(width: 32, height: 48))
            #expect(turned.gainMap?.pixelSize == PixelSize(width: 16, height: 24))
            // Padding shows no gain: the map grows by the same share, and its border is neutral.
            let padded = try ImageDecoder.decode(await proxy.respond(path: ServerTests.path("rs:fit:48:48/pd:8/bg:000/f:jpg", source)).body)
            let paddedMap = try #require(padded.gainMap)
            #expect(paddedMap.pixelSize == PixelSize(width: 32, height: 24))
            #expect(Int(paddedMap.bitmap.pixels[0]) <= 8, "the corner is padding: no gain")
        }
    }

    /// `wm` lays the watermark's shape over the map as no gain: an HDR display shows the mark as
    /// in SDR, and the rest of the photograph keeps its light.
    @Test func aWatermarkShowsAsInSDR() async throws {
        let data = try #require(Self.fixture)
        let mark = Bitmap(width: 24, height: 16, fill: RGBA(255, 255, 255))
        try await ProxyOptionsTests.withProxy({ configuration in
            configuration.watermark = try WatermarkImage.decoding(PNGEncoder().encode(mark))
        }) { proxy, origin in
            origin.set("/hdr.jpg", data: data, contentType: "image/jpeg")
            let source = origin.url(for: "/hdr.jpg")
            func map(_ options: String) async throws -> Bitmap {
                try #require(try ImageDecoder.decode(await proxy.respond(path: ServerTests.path(options, source)).body).gainMap).bitmap
            }
            let plain = try await map("rs:fit:48:48/f:jpg")
            // A 48x32 result with the 24x16 mark in its south-east corner: the 24x16 map's
            // lower-right quarter, from (12, 8).
            let marked = try await map("rs:fit:48:48/wm:1:soea/f:jpg")
            #expect(plain[19, 12].r > 40, "the map brightens there without the mark")
            #expect(marked[19, 12].r <= 8 && marked[22, 14].r <= 8, "under the mark: no gain")
            #expect(abs(Int(marked[4, 4].r) - Int(plain[4, 4].r)) <= 4, "away from the mark: as it was")
        }
    }

    @Test func autoPrefersJPEGForAGainMapSourceAndGm0PrefersSize() async throws {
        try await Self.withGainMapSource { proxy, source in
            try #require(proxy.canWriteWebP, "this build writes WebP")
            let kept = await proxy.respond(path: ServerTests.path("rs:fit:48:48", source), accept: "image/avif,image/webp,*/*")
            #expect(kept.header("Content-Type") == "image/jpeg")
            #expect(kept.header("Vary") == "Accept")
            #expect(try ImageDecoder.decode(kept.body).gainMap != nil)
            let dropped = await proxy.respond(path: ServerTests.path("rs:fit:48:48/gm:0", source), accept: "image/webp,*/*")
            #expect(dropped.header("Content-Type") == "image/webp")
            let plain = await proxy.respond(path: ServerTests.path("rs:fit:48:48/gain_map:0/f:jpg", source))
            #expect(plain.header("Content-Type") == "image/jpeg")
            #expect(try ImageDecoder.decode(plain.body).gainMap == nil, "gm:0 drops the map from JPEG too")
            // A format the path names is kept; it cannot carry the map, so the SDR base goes out.
            let named = await proxy.respond(path: ServerTests.path("rs:fit:48:48/f:png", source))
            #expect(named.header("Content-Type") == "image/png")
            #expect(try ImageDecoder.decode(named.body).gainMap == nil)
        }
    }

    @Test func theOptionParsesAndNamesTheResponse() throws {
        var options = ProcessingOptions()
        let kept = options.canonical
        options.keepsGainMap = false
        #expect(options.canonical != kept)
        #expect(try ProcessingPath.parse("/_/gm:0/plain/http%3A%2F%2Fa%2Fb.jpg").options.keepsGainMap == false)
        #expect(try ProcessingPath.parse("/_/w:10/plain/http%3A%2F%2Fa%2Fb.jpg").options.keepsGainMap)
        #expect(throws: ProcessingPathError.self) { try ProcessingPath.parse("/_/gm:maybe/plain/http%3A%2F%2Fa%2Fb.jpg") }
    }
}

/// The proxy's gain-map JPEG read by libvips 8.18 (the test venv's pyvips, as ImagoTests'
/// `GainMapInteropTests`): `uhdrload` finds the map, and the HDR rendition (`uhdr2scRGB`) of
/// `rs:fit:48:48` is within the same bound of libvips' own `thumbnail` to 48 px, both reduced to
/// 16 px wide (measured 41.3 dB; the map dropped with `gm:0`: 11.0 dB).
@Suite(.enabled(if: ExternalPrograms.runs(ExternalPrograms.testVenvPyvips)))
struct ProxyGainMapLibvipsTests {
    static let bound = 35.0
    static let script = """
        import json, math, sys, pyvips
        def hdr(image):
            return image.uhdr2scRGB() if "gainmap-data" in image.get_fields() else image.colourspace("scrgb")
        proxy = pyvips.Image.new_from_file(sys.argv[2])
        reference = hdr(pyvips.Image.thumbnail(sys.argv[1], int(sys.argv[3])))
        output = hdr(proxy)
        reference, output = reference.resize(16 / reference.width), output.resize(16 / output.width)
        difference = reference - output
        mse = (difference * difference).avg()
        print(json.dumps({"gainmap": "gainmap-data" in proxy.get_fields(),
                          "psnr": 10 * math.log10(reference.max() ** 2 / max(mse, 1e-12))}))
        """

    @Test(arguments: [("rs:fit:48:48/f:jpg", true), ("rs:fit:48:48/f:jpg/gm:0", false)])
    func libvipsReadsTheProxysMapAndItsHDRRenditionIsWithinTheBound(_ options: String, _ keeps: Bool) async throws {
        let python = try #require(ExternalPrograms.testVenvPyvips, "make the test venv: Scripts/packages.sh's install_test_venv (pyvips, pyvips-binary)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-proxy-gainmap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = folder.appendingPathComponent("source.jpg")
        try #require(ProxyGainMapTests.fixture).write(to: fixture)
        let output = folder.appendingPathComponent("proxy.jpg")
        try await ProxyGainMapTests.withGainMapSource { proxy, source in
            let response = await proxy.respond(path: ServerTests.path(options, source))
            try #require(response.status == 200)
            try response.body.write(to: output)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", Self.script, fixture.path, output.path, "48"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "pyvips failed: \(String(decoding: data, as: UTF8.self))")
        let result = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(result["gainmap"] as? Bool == keeps)
        let psnr = try #require(result["psnr"] as? Double)
        #expect((psnr > Self.bound) == keeps, "\(psnr) dB")
    }
}
#endif
