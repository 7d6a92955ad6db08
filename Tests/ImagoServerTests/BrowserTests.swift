#if os(Linux) || os(macOS)
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
    @Test(.enabled(if: ExternalTools.runsChromium))
    func demoPageLoadsEveryImage() async throws {
        let scale = 1
        let chromium = try #require(ExternalTools.chromium, "install Debian's chromium")
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
        let signer = URLSigner(key: Array("browser-test-key".utf8), salt: [])
        let page = DemoPage(items: items, signer: signer)
        var configuration = ImageProxyConfiguration(
            signer: signer, sourcePolicy: SourcePolicy(allowedAddresses: [IPAddress.v4(127, 0, 0, 1)]))
        configuration.maximumConcurrentRequests = 4
        let server = try await RunningServer.start(configuration, page: page)
        defer { Task { try? await server.stop(); try? await origin.shutdown() } }

        let output = ExternalTools.outputDirectory
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let screenshot = output.appendingPathComponent("serve-demo-\(scale)x.png")
        try? FileManager.default.removeItem(at: screenshot)
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("imago-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let common = [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
            "--user-data-dir=\(profile.path)", "--force-device-scale-factor=\(scale)", "--window-size=1100,900",
            "--virtual-time-budget=30000", "--run-all-compositor-stages-before-draw",
        ]
        let url = "http://127.0.0.1:\(server.port)/"
        let dom = try await CommandRunner.run(
            URL(fileURLWithPath: chromium), arguments: common + ["--dump-dom", url], timeLimit: .seconds(120))
        let html = dom.output
        #expect(html.contains("data-loaded=\"8/8\""), "chromium printed: \(html.suffix(2000)) \(dom.errorOutput.suffix(2000))")
        let natural = html.components(separatedBy: "data-natural=\"").dropFirst().compactMap { $0.split(separator: "\"").first }
        let expected = "\(page.width * scale)x\(page.height * scale)"
        #expect(natural.count >= 8, "\(natural)")
        #expect(natural.allSatisfy { $0 == expected }, "every image \(expected): \(natural)")

        let shot = try await CommandRunner.run(
            URL(fileURLWithPath: chromium), arguments: common + ["--screenshot=\(screenshot.path)", url],
            timeLimit: .seconds(120))
        #expect(FileManager.default.fileExists(atPath: screenshot.path), "\(shot.errorOutput.suffix(2000))")
        print("BrowserTests: screenshot at \(screenshot.path)")
        for item in items {
            let reply = try await server.get(page.path(for: item, ratio: 2))
            #expect(reply.status == 200)
            #expect(ImageHeader.probe(reply.body).map { "\($0.width)x\($0.height)" } == "\(2 * page.width)x\(2 * page.height)")
        }
    }
}
#endif
