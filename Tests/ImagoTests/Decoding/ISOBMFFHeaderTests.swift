import Foundation
import Testing

@testable import Imago

/// The box parser meets hostile sizes: every one is a specific failure, never a trap.
@Suite struct ISOBMFFHeaderTests {
    static func box(_ type: String, size: UInt32? = nil, _ payload: [UInt8] = []) -> [UInt8] {
        let declared = size ?? UInt32(8 + payload.count)
        return withUnsafeBytes(of: declared.bigEndian, Array.init) + Array(type.utf8) + payload
    }

    static let ftyp = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))

    static func ispe(_ width: UInt32, _ height: UInt32) -> [UInt8] {
        box("ispe", [0, 0, 0, 0] + withUnsafeBytes(of: width.bigEndian, Array.init)
            + withUnsafeBytes(of: height.bigEndian, Array.init))
    }

    static func meta(_ children: [UInt8]) -> [UInt8] { box("meta", [0, 0, 0, 0] + children) }

    func failure(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ISOBMFFHeader.parse(Data(bytes))
            return nil
        } catch {
            return error.description
        }
    }

    @Test func primaryItemSizeWithRotation() throws {
        // Item 1 has ispe 40x30 and irot 1 (90°); item 2 (a thumbnail) has ispe 8x6.
        let ipco = Self.box("ipco", Self.ispe(40, 30) + Self.box("irot", [1]) + Self.ispe(8, 6))
        let ipma = Self.box("ipma", [0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 2, 0x81, 0x02, 0, 2, 1, 0x03])
        let pitm = Self.box("pitm", [0, 0, 0, 0, 0, 1])
        let header = try ISOBMFFHeader.parse(Data(Self.ftyp + Self.meta(pitm + Self.box("iprp", ipco + ipma))))
        #expect(header.width == 30 && header.height == 40)
        #expect(header.brands == ["heic", "mif1", "heic"])
    }

    @Test(arguments: [
        ([UInt8](), "no 'ftyp'"),
        (box("free") + ftyp, "not 'ftyp'"),
        (ftyp + box("meta", size: 4), "less than its own header"),
        (ftyp + box("meta", size: 0xFFFF_FFF0, [0, 0, 0, 0]), "ends inside its 'meta' box"),
        (ftyp + box("mdat", size: 1, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]), "absurd size"),
        (ftyp + box("mdat", size: 1, [0, 0, 0, 0]), "64-bit size"),
        (ftyp + meta(box("iprp", box("ipco", box("ispe", [0, 0])))), "'ispe' property is cut short"),
        (ftyp + meta(box("iprp", box("ipma", [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 1]))), "'ipma' box is cut short"),
        (ftyp + meta(box("pitm", [0, 0, 0, 0, 0])), "'pitm' box is cut short"),
        (ftyp + meta(box("iprp", box("ipco", ispe(0, 10)))), "0x10"),
        (ftyp + box("moov", box("trak", box("mdia", box("minf", box("stbl", box("stsz", [0, 0])))))), "'stsz' box is cut short"),
        (ftyp + Array(repeating: 0, count: 5), "box header"),
        (ftyp, "before its 'meta' box"),
    ] as [([UInt8], String)])
    func malformedBoxesFail(_ bytes: [UInt8], _ expected: String) {
        let message = failure(bytes)
        #expect(message?.contains(expected) == true, "\(message ?? "parsed")")
    }

    @Test func deepNestingIsBounded() {
        var nested = Self.box("stsz", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        for _ in 0..<40 { nested = Self.box("trak", nested) }
        let message = failure(Self.ftyp + Self.box("moov", nested))
        #expect(message?.contains("nest deeper") == true, "\(message ?? "parsed")")
    }

    /// Random damage to a real file: any outcome but a trap.
    @Test func randomDamageNeverTraps() throws {
        let original = [UInt8](try Fixture.named("heif-lossless-grid").data())
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var bytes = original
            for _ in 0..<4 {
                let index = Int.random(in: 0..<min(bytes.count, 600), using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? ISOBMFFHeader.parse(Data(bytes))
            _ = ImageHeader.probe(Data(bytes))
        }
    }
}
