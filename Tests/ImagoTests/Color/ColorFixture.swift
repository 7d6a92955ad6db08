import Foundation
import Testing

@testable import Imago

/// One file of the colour corpus in `Fixtures/colour/` (made by its `make-colour-fixtures.py` with
/// Pillow, pillow-heif, libavif, libwebp and Little CMS), with the sRGB reference that Little CMS or
/// libvips made from that very file.
struct ColorFixture: Decodable, Sendable, CustomTestStringConvertible {
    let file: String
    let reference: String
    let format: String
    /// `rgb`, `gray`, `cmyk` (an ICC profile of that space), `nclx`, `chromaticities` (PNG gAMA and
    /// cHRM), `srgb-chunk`, or `broken` (a profile that must be ignored, with a repair).
    let profile: String
    /// The profile's description tag, where the file carries an ICC profile.
    let description: String?
    let width: Int
    let height: Int

    var testDescription: String { file }

    static let folder = Fixture.folder.appendingPathComponent("colour")

    /// Every fixture in the manifest; empty if it cannot be read (a test then fails on the count).
    static let all: [ColorFixture] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("manifest.json")) else { return [] }
        return (try? JSONDecoder().decode([ColorFixture].self, from: data)) ?? []
    }()

    /// The small fixtures (the proxy's full-size source is tested by the server's tests).
    static let decoded = all.filter { !$0.file.hasPrefix("serve-") }

    static func data(_ file: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(file))
    }

    func data() throws -> Data { try Self.data(file) }

    /// The reference as a bitmap (a PNG without colour tags, so read as it is).
    func referenceBitmap() throws -> Bitmap {
        try ImageDecoder.decode(Self.data(reference)).bitmap()
    }
}
