#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE` (`ImageProxyConfiguration.usesLinearLight`): the
/// resize in linear light.
@Suite struct ProxyLinearLightTests {
    @Test func theEnvironmentTurnsItOn() throws {
        var configuration = ImageProxyConfiguration()
        #expect(!configuration.usesLinearLight)
        try ServeEnvironment(["IMGPROXY_USE_LINEAR_COLORSPACE": "true"]).apply(to: &configuration)
        #expect(configuration.usesLinearLight)
        #expect {
            _ = try ServeEnvironment(["IMGPROXY_USE_LINEAR_COLORSPACE": "linear"])
        } throws: { error in
            (error as? ServeEnvironmentError)?.variable == "IMGPROXY_USE_LINEAR_COLORSPACE"
        }
    }

    /// Black and white one-pixel columns halved: half the light (sRGB 187.5) in linear light,
    /// the half of the stored values (127.5) without.
    @Test(arguments: [false, true])
    func linesHalvedKeepTheirLight(linearLight: Bool) async throws {
        var stripes = Bitmap(width: 64, height: 64, fill: RGBA(255, 255, 255, 255))
        for y in 0..<64 { for x in stride(from: 0, to: 64, by: 2) { stripes[x, y] = RGBA(0, 0, 0, 255) } }
        let png = try PNGEncoder().encode(stripes)
        try await ProxyOptionsTests.withProxy({ $0.usesLinearLight = linearLight }) { proxy, origin in
            origin.set("/stripes.png", data: png, contentType: "image/png")
            let image = try ProxyOptionsTests.image(await proxy.respond(path: ServerTests.path("rs:fit:32:32/f:png", origin.url(for: "/stripes.png"))))
            try #require(image.width == 32 && image.height == 32)
            let expected: ClosedRange<UInt8> = linearLight ? 186...189 : 126...129
            for y in 4..<28 {
                for x in 4..<28 {
                    #expect(expected.contains(image[x, y].r), "\(x),\(y): \(image[x, y])")
                }
            }
        }
    }

    /// With the source's profile kept (`scp:0`), linear light applies only to a profile with
    /// sRGB's transfer curve (Display P3), not to ProPhoto's gamma 1.8: its stored values are halved.
    @Test(arguments: [("prophoto.png", false), ("displayp3.png", true)])
    func keptProfilesWithAnotherCurveAreResampledAsStored(file: String, linear: Bool) async throws {
        let profileSource = try Data(contentsOf: ServerTests.colourFolder.appendingPathComponent(file))
        let profile = try #require(try ImageDecoder.decode(profileSource, colorProfileHandling: .keep).colorProfile)
        var stripes = Bitmap(width: 64, height: 64, fill: RGBA(255, 255, 255, 255))
        for y in 0..<64 { for x in stride(from: 0, to: 64, by: 2) { stripes[x, y] = RGBA(0, 0, 0, 255) } }
        let png = try profile.embedded(in: try PNGEncoder().encode(stripes), format: .png)
        try await ProxyOptionsTests.withProxy({ $0.usesLinearLight = true }) { proxy, origin in
            origin.set("/stripes.png", data: png, contentType: "image/png")
            let response = await proxy.respond(path: ServerTests.path("rs:fit:32:32/f:png/scp:0", origin.url(for: "/stripes.png")))
            try #require(response.status == 200)
            let image = try ImageDecoder.decode(response.body, colorProfileHandling: .keep).bitmap()
            let expected: ClosedRange<UInt8> = linear ? 186...189 : 126...129
            #expect(expected.contains(image[16, 16].r), "\(file): \(image[16, 16])")
        }
    }
}
#endif
