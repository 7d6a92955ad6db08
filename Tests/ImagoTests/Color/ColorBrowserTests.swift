import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// The browser is the judge users use: headless Chromium, told the display is sRGB
/// (`--force-color-profile=srgb`), shows each colour fixture beside Imago's sRGB output of it, and
/// the two regions of its screenshot agree within the bound the decoder tests use.
///
/// Without Chromium the test is skipped with a note, except in CI (`CI=true`), where `.ci/run`
/// installs it and its absence fails the test.
@Suite("Colour profiles: Imago's sRGB output as Chromium shows the files")
struct ColorBrowserTests {
    /// Fixtures Chromium decodes (not HEIC), each shown as it is and as Imago converted it.
    static let shown = ColorFixture.decoded.filter { $0.format != "heic" && $0.profile != "broken" }

    static let cell = (width: 192, height: 144)
    static let gap = 8

    @Test(.timeLimit(.minutes(5)))
    func chromiumShowsTheFilesAsImagoConvertsThem() async throws {
        guard let chromium = BrowserParityTests.chromium() else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("Chromium is missing: .ci/run installs the Debian package `chromium`; CI must run this test")
            } else {
                print("ColorBrowserTests: skipped, no Chromium (apt-get install chromium, or set IMAGO_CHROMIUM)")
            }
            return
        }
        let fixtures = Self.shown
        #expect(fixtures.count >= 12, "\(fixtures.map(\.file))")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-colour-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // Row i: the file as Chromium decodes it, then Imago's sRGB PNG of it (which carries no profile).
        var page = "<!doctype html><html><head><meta charset=utf-8><style>"
            + "html,body{margin:0;background:#fff}img{position:absolute;image-rendering:pixelated}</style></head><body>\n"
        for (row, fixture) in fixtures.enumerated() {
            let y = row * (Self.cell.height + Self.gap)
            let original = "original-\(row)-\(fixture.file)"
            try fixture.data().write(to: folder.appendingPathComponent(original))
            let converted = try ImageDecoder.decode(fixture.data()).encoded(as: .png)
            try converted.write(to: folder.appendingPathComponent("imago-\(row).png"))
            page += "<img src=\"\(original)\" style=\"left:0;top:\(y)px\">"
            page += "<img src=\"imago-\(row).png\" style=\"left:\(Self.cell.width + Self.gap)px;top:\(y)px\">\n"
        }
        page += "</body></html>"
        try Data(page.utf8).write(to: folder.appendingPathComponent("page.html"))

        let screenshot = folder.appendingPathComponent("screenshot.png")
        let width = 2 * Self.cell.width + Self.gap
        let height = fixtures.count * (Self.cell.height + Self.gap)
        let profile = folder.appendingPathComponent("chromium-profile")
        let arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-extensions", "--user-data-dir=\(profile.path)",
            "--force-color-profile=srgb", "--force-device-scale-factor=1", "--hide-scrollbars",
            "--window-size=\(width),\(height)", "--virtual-time-budget=10000",
            "--screenshot=\(screenshot.path)", folder.appendingPathComponent("page.html").absoluteString,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = profile.path
        let result = try await CommandRunner.run(chromium, arguments: arguments, environment: environment, timeLimit: .seconds(180))
        let shot = try #require(
            try? ImageDecoder.decode(Data(contentsOf: screenshot)).bitmap(),
            "Chromium wrote no screenshot (status \(result.status), timed out: \(result.timedOut)); stderr: \(result.errorOutput.suffix(2_000))")
        try #require(shot.width >= width && shot.height >= height, "screenshot \(shot) for a page of \(width)x\(height)")

        var lines: [String] = []
        for (row, fixture) in fixtures.enumerated() {
            let y = row * (Self.cell.height + Self.gap)
            let browser = Self.crop(shot, x: 0, y: y)
            let imago = Self.crop(shot, x: Self.cell.width + Self.gap, y: y)
            let deltaE = ColorDifference.meanCIEDE2000(browser, imago)
            let psnr = ColorDifference.peakSignalToNoise(browser, imago)
            // The same check could fail: the pixels as stored, without their profile.
            let kept = try ImageDecoder.decode(fixture.data(), colorProfileHandling: .keep).bitmap()
            let keptDeltaE = ColorDifference.meanCIEDE2000(browser, kept)
            lines.append("\(fixture.file): ΔE2000 \(String(format: "%.3f", deltaE)), \(String(format: "%.1f", psnr)) dB; as stored: ΔE \(String(format: "%.2f", keptDeltaE))")
            // A CMYK print profile is a lookup table, which Chromium's skcms and Little CMS interpolate
            // differently: 1.7 ΔE apart on cmyk.jpg, where Imago is 0.002 from Little CMS and libvips.
            let bound = fixture.profile == "cmyk" ? 2.0 : 1.5
            #expect(deltaE <= bound || psnr >= 33, "\(fixture.file): Chromium and Imago differ by ΔE \(deltaE), \(psnr) dB")
            if ["rgb", "nclx", "chromaticities"].contains(fixture.profile) {  // CMYK and gray convert even when kept
                #expect(keptDeltaE > 1.5, "\(fixture.file): the unconverted pixels are as close (ΔE \(keptDeltaE)): the check proves nothing")
            }
        }
        print("ColorBrowserTests:\n" + lines.joined(separator: "\n"))
    }

    /// The cell at (`x`, `y`) of the screenshot.
    static func crop(_ bitmap: Bitmap, x: Int, y: Int) -> Bitmap {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(cell.width * cell.height * 4)
        for row in y..<(y + cell.height) {
            let start = (row * bitmap.width + x) * 4
            pixels += bitmap.pixels[start..<(start + cell.width * 4)]
        }
        return Bitmap(width: cell.width, height: cell.height, alphaMode: .opaque, pixels: pixels)
    }
}
