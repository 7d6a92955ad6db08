#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// The demo page in headless Chromium: every thumbnail arrives through the proxy at the size the
/// page asked for; a screenshot is saved to the test output. Headless Chromium's `--dump-dom`
/// picks the 1x candidate of `srcset` whatever `--force-device-scale-factor` says, so the 2x
/// candidates are checked by fetching them.
@Suite(.serialized) struct BrowserTests {
    @Test(.enabled(if: ExternalPrograms.runsChromium))
    func demoPageLoadsEveryImage() async throws {
        let scale = 1
        let chromium = try #require(ExternalPrograms.chromium, "install Debian's chromium")
        let origin = try await TestServer.start()
        var items: [DemoPage.Item] = []
        for index in 0..<8 {
            let path = index % 4 == 3 ? "/g/\(index).png" : "/g/\(index).jpg"
            let data =
                index % 4 == 3
                ? try Fixtures.png(width: 640, height: 480, seed: index, transparent: true)
                : try Fixtures.jpeg(width: index % 2 == 0 ? 800 : 600, height: 600, seed: index)
            origin.set(path, data: data, contentType: index % 4 == 3 ? "image/png" : "image/jpeg")
            items.append(DemoPage.Item(source: origin.url(for: path), caption: path))
        }
        origin.set("/g/portrait.jpg", data: try Fixtures.jpeg(width: 450, height: 600, seed: 9), contentType: "image/jpeg")
        let signer = URLSigner(key: Array("browser-test-key-of-32-bytes-or-more".utf8), salt: [])
        let variants = DemoPage.showcase(landscape: items[0].source, portrait: origin.url(for: "/g/portrait.jpg"))
        let page = DemoPage(items: items, variants: variants, signer: signer)
        let pictures = items.count + variants.count
        var configuration = ImageProxyConfiguration(
            signer: signer, sourcePolicy: SourcePolicy(allowedAddresses: [IPAddress.v4(127, 0, 0, 1)]))
        configuration.maximumConcurrentRequests = 4
        let server = try await RunningServer.start(configuration, page: page)
        defer { Task { try? await server.stop(); try? await origin.shutdown() } }

        let output = ExternalPrograms.outputDirectory
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let screenshot = output.appendingPathComponent("serve-demo-\(scale)x.png")
        try? FileManager.default.removeItem(at: screenshot)
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("imago-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let common = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
            "--user-data-dir=\(profile.path)", "--force-device-scale-factor=\(scale)", "--window-size=1100,1300",
            "--virtual-time-budget=30000", "--run-all-compositor-stages-before-draw",
        ]
        let url = "http://127.0.0.1:\(server.port)/"
        let dom = try await CommandRunner.run(
            URL(fileURLWithPath: chromium), arguments: common + ["--dump-dom", url], timeLimit: .seconds(120))
        let html = dom.output
        #expect(html.contains("data-loaded=\"\(pictures)/\(pictures)\""), "chromium printed: \(html.suffix(2000)) \(dom.errorOutput.suffix(2000))")
        #expect(variants.allSatisfy { html.contains($0.options.joined(separator: "/")) }, "every variant is captioned with its options")
        let natural = html.components(separatedBy: "data-natural=\"").dropFirst().compactMap { $0.split(separator: "\"").first }
        let expected = "\(page.width * scale)x\(page.height * scale)"
        #expect(natural.count >= pictures, "\(natural)")
        #expect(natural.allSatisfy { $0 == expected }, "every image \(expected): \(natural)")

        let shot = try await CommandRunner.run(
            URL(fileURLWithPath: chromium), arguments: common + ["--screenshot=\(screenshot.path)", url],
            timeLimit: .seconds(120))
        #expect(FileManager.default.fileExists(atPath: screenshot.path), "\(shot.errorOutput.suffix(2000))")
        print("BrowserTests: screenshot at \(screenshot.path)")
        let paths = items.map { page.path(for: $0, ratio: 2) } + variants.map { page.path(for: $0, ratio: 2) }
        for path in paths {
            let reply = try await server.get(path)
            #expect(reply.status == 200, "\(path)")
            #expect(ImageHeader.probe(reply.body).map { "\($0.width)x\($0.height)" } == "\(2 * page.width)x\(2 * page.height)", "\(path)")
        }
        // What the options row shows, at 2x (whole 16-pixel JPEG blocks of padding): the padding
        // and the extension in their background colours, blur and sharpening changing the fill.
        func picture(_ caption: String) async throws -> Bitmap {
            let variant = try #require(variants.first { $0.caption.hasPrefix(caption) })
            return try ImageDecoder.decode(try await server.get(page.path(for: variant, ratio: 2)).body).bitmap()
        }
        let plain = try ImageDecoder.decode(try await server.get(page.path(for: items[0], ratio: 2)).body).bitmap()
        let padded = try await picture("12 px of padding")
        let extended = try await picture("fitted, then extended")
        #expect(Self.near(padded[6, 6], (0x2A, 0x6D, 0xF4)), "padding: \(padded[6, 6])")
        #expect(Self.near(padded[473, 353], (0x2A, 0x6D, 0xF4)), "padding: \(padded[473, 353])")
        #expect(Self.near(extended[8, 180], (0xF4, 0xB0, 0x2A)), "extension: \(extended[8, 180])")
        #expect(Self.near(extended[471, 180], (0xF4, 0xB0, 0x2A)), "extension: \(extended[471, 180])")
        #expect(!Self.near(extended[240, 180], (0xF4, 0xB0, 0x2A)), "the picture sits in the middle")
        for caption in ["Gaussian blur", "sharpened"] {
            let filtered = try await picture(caption)
            #expect(Self.meanDifference(filtered, plain) > 1, "\(caption) changes the picture")
        }
    }

    /// Whether a pixel is within 12 of `rgb` on each channel (JPEG at quality 80).
    static func near(_ pixel: RGBA, _ rgb: (Int, Int, Int)) -> Bool {
        abs(Int(pixel.r) - rgb.0) <= 12 && abs(Int(pixel.g) - rgb.1) <= 12 && abs(Int(pixel.b) - rgb.2) <= 12
    }

    /// The mean absolute difference of two same-size bitmaps' colour channels.
    static func meanDifference(_ a: Bitmap, _ b: Bitmap) -> Double {
        guard a.width == b.width, a.height == b.height else { return .infinity }
        var total = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let (p, q) = (a[x, y], b[x, y])
                total += abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b))
            }
        }
        return Double(total) / Double(a.width * a.height * 3)
    }
}
#endif
