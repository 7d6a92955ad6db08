import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// Files carrying colour profiles decode to what Little CMS (or libvips) makes of them: wide-gamut
/// RGB (Adobe RGB, ProPhoto, Display P3), CICP-tagged HEIC and AVIF, CMYK, gray, a 16-bit PNG,
/// PNG gAMA and cHRM, and broken profiles, which are read as sRGB with a repair.
@Suite("Colour profiles: decoded as Little CMS converts them")
struct ColorProfileFixtureTests {
    /// The bound the issue sets: a mean ΔE2000 of 1.5, or a PSNR of 33 dB.
    static let maximumDeltaE = 1.5
    static let minimumPSNR = 33.0

    @Test func theCorpusIsComplete() {
        let kinds = Set(ColorFixture.decoded.map(\.profile))
        #expect(kinds.isSuperset(of: ["rgb", "gray", "cmyk", "nclx", "chromaticities", "srgb-chunk", "broken"]), "\(kinds)")
        #expect(Set(ColorFixture.decoded.map(\.format)).isSuperset(of: ["jpeg", "png", "webp", "heic", "avif"]))
    }

    @Test(arguments: ColorFixture.decoded)
    func decodesToTheLittleCMSReference(_ fixture: ColorFixture) throws {
        let container = try ImageDecoder.decode(fixture.data())
        let bitmap = try container.bitmap()
        let reference = try fixture.referenceBitmap()
        try #require(bitmap.width == reference.width && bitmap.height == reference.height, "\(bitmap) against \(reference)")
        let deltaE = ColorDifference.meanCIEDE2000(bitmap, reference)
        let psnr = ColorDifference.peakSignalToNoise(bitmap, reference)
        #expect(
            deltaE <= Self.maximumDeltaE || psnr >= Self.minimumPSNR,
            "\(fixture.file): mean ΔE2000 \(deltaE), PSNR \(psnr) dB against \(fixture.reference)")
        #expect(container.colorProfileHandling == .convertToSRGB)
        // Closer than the bound: the same conversion, not merely a similar one (Little CMS itself,
        // or the matrix/TRC fast path, which stays within one level of it).
        #expect(deltaE < 0.1, "\(fixture.file): mean ΔE2000 \(deltaE) from Little CMS's conversion")

        let ignored = container.repairs.filter { if case .ignoredColorProfile = $0.kind { true } else { false } }
        switch fixture.profile {
        case "broken":
            #expect(container.colorProfile == nil)
            #expect(ignored.count == 1, "\(fixture.file): \(container.repairs)")
        case "srgb-chunk":
            #expect(container.colorProfile == nil)
            #expect(ignored.isEmpty)
        default:
            let profile = try #require(container.colorProfile, "\(fixture.file) lost its profile")
            #expect(ignored.isEmpty, "\(fixture.file): \(container.repairs)")
            if let name = fixture.description { #expect(profile.name == name) }
            let space: ColorProfile.ColorSpace = fixture.profile == "gray" ? .gray : fixture.profile == "cmyk" ? .cmyk : .rgb
            #expect(profile.colorSpace == space)
        }
    }

    /// The check above can fail: kept as they are, the wide-gamut files are beyond its bound from
    /// their references, and the profile is carried for the caller.
    @Test(arguments: ColorFixture.decoded.filter { ["rgb", "nclx", "chromaticities"].contains($0.profile) })
    func keptPixelsAreThePixelsAsStored(_ fixture: ColorFixture) throws {
        let container = try ImageDecoder.decode(fixture.data(), colorProfileHandling: .keep)
        #expect(container.colorProfileHandling == .keep)
        #expect(container.colorProfile != nil)
        #expect(container.pixelColorProfile == container.colorProfile)
        let bitmap = try container.bitmap(), reference = try fixture.referenceBitmap()
        let deltaE = ColorDifference.meanCIEDE2000(bitmap, reference)
        let psnr = ColorDifference.peakSignalToNoise(bitmap, reference)
        #expect(deltaE > Self.maximumDeltaE && psnr < Self.minimumPSNR, "\(fixture.file): kept pixels are only ΔE \(deltaE), \(psnr) dB from the converted reference")
    }

    /// A 16-bit PNG goes through its profile at 16 bits: as close to Little CMS's 16-bit conversion
    /// as rounding allows (0.03; through 8-bit samples it was 0.09).
    @Test func sixteenBitPNGKeepsItsPrecisionThroughTheTransform() throws {
        let fixture = try #require(ColorFixture.decoded.first { $0.file == "rgb16-iccp.png" })
        let full = try ImageDecoder.decode(fixture.data())
        let deltaE = ColorDifference.meanCIEDE2000(try full.bitmap(), try fixture.referenceBitmap())
        #expect(deltaE < 0.05, "ΔE \(deltaE)")
        #expect(full.colorProfile?.name == fixture.description)
        // Reduced on load too, the profile still applies.
        let thumbnail = try ImageDecoder.decode(fixture.data(), maximumPixelSize: 48)
        #expect(thumbnail.pixelSize.width < fixture.width && thumbnail.colorProfile != nil)
    }

    /// Under the strict policy a damaged profile is still no reason to refuse the picture.
    @Test(arguments: ColorFixture.decoded.filter { $0.profile == "broken" })
    func brokenProfilesDoNotFailAStrictDecode(_ fixture: ColorFixture) throws {
        let container = try ImageDecoder.decode(fixture.data(), policy: .strict)
        #expect(container.colorProfile == nil)
        #expect(container.repairs.contains { if case .ignoredColorProfile = $0.kind { true } else { false } })
    }

    /// A profile over ``DecodingLimits/maximumColorProfileSize`` is not read: sRGB, with the limit named.
    @Test func aProfileOverTheLimitIsNotRead() throws {
        let fixture = try #require(ColorFixture.decoded.first { $0.file == "prophoto.png" })
        var limits = DecodingLimits()
        limits.maximumColorProfileSize = 1_000
        let container = try ImageDecoder.decode(fixture.data(), limits: limits)
        #expect(container.colorProfile == nil)
        #expect(container.repairs.map(\.description).contains { $0.contains("maximumColorProfileSize") }, "\(container.repairs)")
    }

    /// Alpha survives the 16-bit path: a 16-bit RGBA PNG given a profile keeps the alpha it has
    /// without one.
    @Test func sixteenBitAlphaIsCopiedThroughTheTransform() throws {
        let plain = try Fixture.data("png-rgba16.png")
        let profile = try ColorProfileReaderTests.profile(of: "adobergb.jpg")
        let tagged = try ColorProfileEmbedder.embed(profile, in: plain, format: .png)
        let converted = try ImageDecoder.decode(tagged)
        #expect(converted.colorProfile?.name == "Compatible with Adobe RGB (1998)")
        let a = try converted.bitmap(), b = try ImageDecoder.decode(plain).bitmap()
        let alphas = stride(from: 3, to: a.pixels.count, by: 4)
        #expect(alphas.allSatisfy { abs(Int(a.pixels[$0]) - Int(b.pixels[$0])) <= 1 }, "alpha changed")
        #expect(a.pixels != b.pixels, "the colours were not converted")
    }
}
