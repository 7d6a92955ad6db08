import Foundation
import Testing

@testable import Imago

/// The readers of what a file declares about its colour, on hand-made variants of the fixtures:
/// JPEG profiles over several APP2 segments, PNG's precedence of cICP, iCCP, sRGB, gAMA and cHRM,
/// WebP's ICCP, HEIF/AVIF `colr`, and the ICC header and description.
@Suite("Colour declarations: read from every format")
struct ColorProfileReaderTests {
    static let limit = DecodingLimits().maximumColorProfileSize

    static func profile(of file: String) throws -> Data {
        let reading = EmbeddedColor.read(try ColorFixture.data(file), format: .jpeg, maximumProfileSize: limit)
        guard case .icc(let data) = reading.color else { throw CancellationError() }
        return data
    }

    /// `jpeg` without its APP2 ICC segments, with `segments` (number, count, bytes) inserted after SOI.
    static func jpeg(_ jpeg: Data, segments: [(Int, Int, Data)]) -> Data {
        var bytes = [UInt8](jpeg)
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] != 0xDA {
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if bytes[offset + 1] == 0xE2 { bytes.removeSubrange(offset..<(offset + 2 + length)) } else { offset += 2 + length }
        }
        var inserted: [UInt8] = []
        for (number, count, part) in segments {
            let length = 2 + 14 + part.count
            inserted += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE\0".utf8)
            inserted += [UInt8(number), UInt8(count)] + [UInt8](part)
        }
        bytes.insert(contentsOf: inserted, at: 2)
        return Data(bytes)
    }

    @Test func aJPEGProfileOverSeveralSegmentsIsJoinedInNumberOrder() throws {
        let source = try ColorFixture.data("adobergb.jpg")
        let profile = try Self.profile(of: "adobergb.jpg")
        let parts = [profile.prefix(200), profile.dropFirst(200).prefix(200), profile.dropFirst(400)].map { Data($0) }
        // Stored out of order: 2, 3, 1.
        let split = Self.jpeg(source, segments: [(2, 3, parts[1]), (3, 3, parts[2]), (1, 3, parts[0])])
        let reading = EmbeddedColor.read(split, format: .jpeg, maximumProfileSize: Self.limit)
        #expect(reading.color == .icc(profile))
        #expect(reading.problems.isEmpty)
        let decoded = try ImageDecoder.decode(split)
        #expect(decoded.colorProfile?.name == "Compatible with Adobe RGB (1998)")
        #expect(decoded.repairs.isEmpty)
    }

    @Test(arguments: [
        ("a missing segment", [(1, 3), (3, 3)]),
        ("a number twice", [(1, 2), (1, 2)]),
        ("counts that disagree", [(1, 2), (2, 3)]),
        ("number 0", [(0, 1)]),
        ("a number past the count", [(1, 1), (2, 1)]),
    ])
    func misnumberedSegmentsAreAProblemNotAProfile(_ label: String, _ numbering: [(Int, Int)]) throws {
        let source = try ColorFixture.data("adobergb.jpg")
        let profile = try Self.profile(of: "adobergb.jpg")
        let broken = Self.jpeg(source, segments: numbering.map { ($0.0, $0.1, profile) })
        let reading = EmbeddedColor.read(broken, format: .jpeg, maximumProfileSize: 1 << 20)
        #expect(reading.color == nil, "\(label)")
        #expect(reading.problems.count == 1 && reading.problems[0].contains("numbered wrongly"), "\(label): \(reading.problems)")
    }

    /// A PNG with `chunks` (type, data) after IHDR; the pixels do not matter to the reader.
    static func png(_ chunks: [(String, [UInt8])]) throws -> Data {
        let source = [UInt8](try ColorFixture.data("original-srgb.png"))
        var output = Array(source[0..<33])
        for (type, body) in chunks {
            let typed = Array(type.utf8) + body
            output += bigEndian(body.count) + typed + bigEndian(Int(Checksum.crc32(typed)))
        }
        return Data(output + source[33...])
    }

    static func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    static let iccp: [UInt8] = {
        let adobe = (try? ColorProfileReaderTests.profile(of: "adobergb.jpg")) ?? Data()
        return Array("ICC Profile".utf8) + [0, 0] + (ColorProfileEmbedder.deflate(adobe) ?? [])
    }()

    @Test func pngChunksFollowTheSpecificationsPrecedence() throws {
        let gama = ("gAMA", Self.bigEndian(55_556))
        let chrm = ("cHRM", [31_270, 32_900, 64_000, 33_000, 21_000, 71_000, 15_000, 6_000].flatMap { Self.bigEndian($0) })
        let srgb = ("sRGB", [UInt8(0)])
        let cicp = ("cICP", [UInt8(12), 13, 0, 1])
        func read(_ chunks: [(String, [UInt8])]) throws -> EmbeddedColor? {
            EmbeddedColor.read(try Self.png(chunks), format: .png, maximumProfileSize: Self.limit).color
        }
        #expect(try read([gama, chrm, srgb, ("iCCP", Self.iccp), cicp]) == .codePoints(ColorCodePoints(primaries: 12, transfer: 13, matrix: 0, fullRange: true)))
        guard case .icc = try read([gama, chrm, srgb, ("iCCP", Self.iccp)]) else {
            Issue.record("iCCP must win over sRGB, gAMA and cHRM")
            return
        }
        #expect(try read([gama, chrm, srgb]) == .sRGB)
        #expect(try read([gama]) == .chromaticities(gamma: 0.55556, points: nil))
        #expect(try read([]) == nil)
    }

    @Test func aCorruptICCPFallsBackToTheNextDeclaration() throws {
        var corrupt = Self.iccp
        corrupt.removeLast(corrupt.count / 2)
        let reading = EmbeddedColor.read(try Self.png([("iCCP", corrupt), ("sRGB", [0])]), format: .png, maximumProfileSize: Self.limit)
        #expect(reading.color == .sRGB)
        #expect(reading.problems.count == 1, "\(reading.problems)")
        let noName = EmbeddedColor.read(try Self.png([("iCCP", [0, 0, 1, 2])]), format: .png, maximumProfileSize: Self.limit)
        #expect(noName.color == nil && noName.problems.count == 1)
    }

    @Test func gAMAAndCHRMOfSRGBNeedNoConversion() {
        #expect(ColorConversion.resolve(.chromaticities(gamma: 0.45455, points: nil)).isNone)
        #expect(ColorConversion.resolve(.chromaticities(gamma: 0.45455, points: [0.3127, 0.329, 0.64, 0.33, 0.3, 0.6, 0.15, 0.06])).isNone)
        #expect(!ColorConversion.resolve(.chromaticities(gamma: 1, points: nil)).isNone)
        #expect(ColorConversion.resolve(.codePoints(ColorCodePoints(primaries: 1, transfer: 13, matrix: 6, fullRange: true))).isNone)
    }

    @Test func codePointsImagoCannotConvertAreAProblem() {
        let pq = ColorConversion.resolve(.codePoints(ColorCodePoints(primaries: 9, transfer: 16, matrix: 9, fullRange: false)))
        guard case .failure(let failure) = pq else { Issue.record("PQ must not convert"); return }
        #expect(failure.description.contains("transfer characteristics 16"))
        let unknown = ColorConversion.resolve(.codePoints(ColorCodePoints(primaries: 99, transfer: 13, matrix: 0, fullRange: true)))
        guard case .failure = unknown else { Issue.record("unknown primaries must not convert"); return }
    }

    @Test func webPCarriesItsProfileInICCP() throws {
        let reading = EmbeddedColor.read(try ColorFixture.data("adobergb.webp"), format: .webp, maximumProfileSize: Self.limit)
        #expect(reading.color == .icc(try Self.profile(of: "adobergb.jpg")))
        let tooSmall = EmbeddedColor.read(try ColorFixture.data("adobergb.webp"), format: .webp, maximumProfileSize: 100)
        #expect(tooSmall.color == nil && tooSmall.problems.first?.contains("maximumColorProfileSize") == true)
    }

    @Test func heifAndAVIFPreferTheirProfileToTheirCodePoints() throws {
        // adobergb.avif carries a `prof` colr and an `nclx` one (2/2/0, for its matrix).
        let avif = try ISOBMFFHeader.parse(ColorFixture.data("adobergb.avif"))
        guard case .icc = avif.color else { Issue.record("\(String(describing: avif.color))"); return }
        let nclx = try ISOBMFFHeader.parse(ColorFixture.data("displayp3-nclx.heic"))
        #expect(nclx.color == .codePoints(ColorCodePoints(primaries: 12, transfer: 13, matrix: 6, fullRange: nclx.color.fullRange)))
    }

    @Test func iccHeadersAndDescriptionsAreRead() throws {
        let v2 = try ColorProfile(iccData: try Self.profile(of: "adobergb.jpg"))
        #expect(v2.name == "Compatible with Adobe RGB (1998)" && v2.colorSpace == .rgb && v2.version.hasPrefix("2."))
        let v4 = try ColorProfile(iccData: try Self.profile(of: "prophoto.jpg"))
        #expect(v4.name == "ProPhoto RGB" && v4.version.hasPrefix("4."))
        let gray = try ColorProfile(iccData: try Self.profile(of: "gray-profile.jpg"))
        #expect(gray.colorSpace == .gray)
        #expect(v2.description.contains("Compatible with Adobe RGB (1998)"))
    }

    enum Damage: String, CaseIterable, Sendable {
        case short, cut, noSignature, tagTable

        func apply(_ data: Data) -> Data {
            var bytes = [UInt8](data)
            switch self {
            case .short: return Data(bytes.prefix(100))
            case .cut: return Data(bytes.prefix(300))
            case .noSignature: bytes[36] = 0x41
            case .tagTable: bytes.replaceSubrange(128..<132, with: [0x10, 0, 0, 0])
            }
            return Data(bytes)
        }

        var expected: String {
            switch self {
            case .short: "shorter than an ICC header"
            case .cut: "cut short"
            case .noSignature: "acsp"
            case .tagTable: "tag table"
            }
        }
    }

    @Test(arguments: Damage.allCases)
    func malformedProfilesSayWhat(_ damage: Damage) throws {
        let profile = try Self.profile(of: "adobergb.jpg")
        do {
            _ = try ColorProfile(iccData: damage.apply(profile))
            Issue.record("\(damage) was read")
        } catch {
            #expect(error.description.contains(damage.expected), "\(damage): \(error)")
        }
    }
}

extension ColorConversion.Resolution {
    var isNone: Bool { if case .none = self { true } else { false } }
}

extension Optional where Wrapped == EmbeddedColor {
    /// The range bit of code points, for comparing the rest.
    var fullRange: Bool { if case .codePoints(let points) = self { points.fullRange } else { false } }
}
