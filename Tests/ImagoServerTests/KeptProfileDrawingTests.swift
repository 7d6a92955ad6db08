#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// What the proxy draws in sRGB (a watermark, the background of padding and of a JPEG's
/// transparency) onto pixels that keep their source's profile (`scp:0`) shows in its sRGB colours
/// once the result is shown through that profile, as imgproxy's (it composites in sRGB and
/// converts back).
@Suite struct KeptProfileDrawingTests {
    /// An orange whose Adobe RGB values differ from its sRGB ones by 10–20 levels.
    static let orange = RGBA(180, 120, 60)

    /// The Adobe RGB (1998) profile of the colour fixtures' photograph.
    static func adobeRGB() throws -> ColorProfile {
        let photo = try Data(contentsOf: ServerTests.colourFolder.appendingPathComponent("serve-source-adobergb.jpg"))
        return try #require(ImageHeader.details(photo)?.colorProfile)
    }

    @Test func aWatermarkAndABackgroundShowTheirSRGBColoursOnKeptProfiles() async throws {
        let profile = try Self.adobeRGB()
        let white = try profile.embedded(in: PNGEncoder().encode(Bitmap(width: 200, height: 100, fill: RGBA(255, 255, 255))), format: .png)
        let transparent = try profile.embedded(
            in: PNGEncoder().encode(Bitmap(width: 40, height: 20, fill: RGBA(0, 0, 0, 0))), format: .png)
        try await ProxyOptionsTests.withProxy({ configuration in
            configuration.watermark = try WatermarkImage.decoding(PNGEncoder().encode(Bitmap(width: 20, height: 10, fill: Self.orange)))
        }) { proxy, origin in
            origin.set("/white.png", data: white, contentType: "image/png")
            origin.set("/clear.png", data: transparent, contentType: "image/png")
            func shown(_ options: String, _ path: String) async throws -> (Bitmap, ColorProfile?) {
                let response = await proxy.respond(path: ServerTests.path(options, origin.url(for: path)))
                try #require(response.status == 200, "\(options): \(String(decoding: response.body, as: UTF8.self))")
                return (try ImageDecoder.decode(response.body).bitmap(), ImageHeader.details(response.body)?.colorProfile)
            }
            // JPEG at quality 100, so that its loss stays well within the tolerance.
            for (output, tolerance) in [("f:png", 1), ("f:jpg/q:100", 4)] {
                // Padding of 10 around a 200x100 result: the 20x10 mark centred on the 220x120
                // canvas, at (100, 55).
                let (marked, kept) = try await shown("wm:1:ce/pd:10/bg:b4783c/scp:0/\(output)", "/white.png")
                #expect(kept?.name == profile.name, "\(output): the profile is kept")
                #expect(ProxyOptionsTests.near(marked[110, 60], Self.orange, tolerance: tolerance), "\(output): mark \(marked[110, 60])")
                #expect(ProxyOptionsTests.near(marked[3, 3], Self.orange, tolerance: tolerance), "\(output): padding \(marked[3, 3])")
            }
            // A transparent source flattened onto the background for JPEG.
            let (flattened, _) = try await shown("bg:b4783c/scp:0/f:jpg/q:100", "/clear.png")
            #expect(ProxyOptionsTests.near(flattened[20, 10], Self.orange, tolerance: 4), "flattened \(flattened[20, 10])")
        }
        // The premise: drawn unconverted, the orange would be off by more than the tolerance.
        let asAdobe = try ImageDecoder.decode(
            profile.embedded(in: PNGEncoder().encode(Bitmap(width: 1, height: 1, fill: Self.orange)), format: .png)
        ).bitmap()[0, 0]
        #expect(!ProxyOptionsTests.near(asAdobe, Self.orange, tolerance: 10), "\(asAdobe)")
    }
}
#endif
