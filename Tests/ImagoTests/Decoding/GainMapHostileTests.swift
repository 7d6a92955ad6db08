import Foundation
import Testing

@testable import Imago

/// Damaged gain-map metadata never costs the image: the base decodes alone and the repair says why
/// (``ImageContainer/Repair/Kind/ignoredGainMap(_:)``). Each case is a libultrahdr fixture with a
/// few bytes changed; the parsers are also checked on hand-made metadata.
@Suite struct GainMapHostileTests {
    static let file = "ultrahdr-64x48.jpg"

    /// The fixture with `change` applied to its bytes.
    static func damaged(_ file: String = file, _ change: (inout [UInt8]) throws -> Void) throws -> Data {
        var bytes = [UInt8](try Fixture.data("gainmap/" + file))
        try change(&bytes)
        return Data(bytes)
    }

    /// Where `pattern` starts in `bytes`, the `occurrence`th time (from 0).
    static func offset(of pattern: [UInt8], in bytes: [UInt8], occurrence: Int = 0) throws -> Int {
        var found = -1
        var from = 0
        for _ in 0...occurrence {
            found = try #require((from...(bytes.count - pattern.count)).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) })
            from = found + 1
        }
        return found
    }

    static func put32(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
    }

    /// The byte after `MPF\0`: the TIFF header the index's offsets count from (big-endian here).
    static func tiff(_ bytes: [UInt8]) throws -> Int { try offset(of: Array("MPF".utf8) + [0], in: bytes) + 4 }

    /// The `MPEntry` tag (0xB002) of the index.
    static func entryTag(_ bytes: [UInt8]) throws -> Int { try offset(of: [0xB0, 0x02, 0x00, 0x07], in: bytes) }

    /// Each damage, and what the repair must say.
    static let cases: [(String, String, @Sendable (inout [UInt8]) throws -> Void)] = [
        ("cut inside the gain map", "does not lie within the 2623-byte file", { bytes in bytes.removeLast(400) }),
        ("second image offset past the end", "at offset 4294967280", { bytes in
            let tiff = try tiff(bytes)
            put32(0xFFFF_FFF0, at: tiff + 0x32 + 16 + 8, in: &bytes)
        }),
        ("second image size past the end", "(2147483647 bytes", { bytes in
            let tiff = try tiff(bytes)
            put32(0x7FFF_FFFF, at: tiff + 0x32 + 16 + 4, in: &bytes)
        }),
        ("65,535 index tags", "lists 65535 tags, more than its 82-byte segment holds", { bytes in
            let tiff = try tiff(bytes)
            bytes[tiff + 8] = 0xFF
            bytes[tiff + 9] = 0xFF
        }),
        ("an image list of 4 GB", "does not fit its 82-byte segment", { bytes in put32(0xFFFF_FFF0, at: try entryTag(bytes) + 4, in: &bytes) }),
        ("no byte order mark", "no TIFF byte order mark", { bytes in bytes[try tiff(bytes)] = 0x58 }),
        ("ISO denominator of 0", "base headroom has a denominator of 0", { bytes in
            let iso = try offset(of: GainMapISOMetadata.identifier, in: bytes, occurrence: 1) + GainMapISOMetadata.identifier.count
            put32(0, at: iso + 5 + 4, in: &bytes)  // versions, flags, base headroom numerator, then its denominator
        }),
        ("map without a frame header", "no readable JPEG header", { bytes in
            // The map's SOF0 (the second in the file) turned into an APP15 segment of the same length.
            bytes[try offset(of: [0xFF, 0xC0], in: bytes, occurrence: 1) + 1] = 0xEF
        }),
        ("ISO minimum version 7", "needs a reader of version 7", { bytes in
            let iso = try offset(of: GainMapISOMetadata.identifier, in: bytes, occurrence: 1) + GainMapISOMetadata.identifier.count
            bytes[iso + 1] = 7
        }),
        ("ISO gain map maximum below its minimum", "is below its minimum", { bytes in
            let iso = try offset(of: GainMapISOMetadata.identifier, in: bytes, occurrence: 1) + GainMapISOMetadata.identifier.count
            put32(0x8000_0000, at: iso + 5 + 16 + 8, in: &bytes)  // the maximum's numerator, now negative
        }),
    ]

    @Test(arguments: cases.map(\.0))
    func theBaseDecodesAloneAndTheRepairSaysWhy(_ name: String) throws {
        let (_, reason, change) = try #require(Self.cases.first { $0.0 == name })
        let data = try Self.damaged(Self.file, change)
        for policy in [DecodingPolicy.lenient, .strict] {
            let container = try ImageDecoder.decode(data, policy: policy)
            #expect(container.pixelSize == PixelSize(width: 64, height: 48))
            #expect(container.gainMap == nil)
            let reasons = container.repairs.compactMap { if case .ignoredGainMap(let reason) = $0.kind { reason } else { nil } }
            #expect(reasons.count == 1 && reasons.allSatisfy { $0.contains(reason) }, Comment(rawValue: "\(name): \(container.repairs)"))
        }
        // The header's details say the same, without decoding.
        let details = try #require(ImageHeader.details(data))
        #expect(details.gainMap == nil && details.gainMapProblem?.contains(reason) == true, "\(name): \(String(describing: details.gainMapProblem))")
    }

    @Test func anUnreadableXMPValueIsNamed() throws {
        let data = try Self.damaged("ultrahdr-64x48-xmp.jpg") { bytes in
            let at = try Self.offset(of: Array("hdrgm:GainMapMax=\"".utf8), in: bytes)
            bytes[at + 18] = UInt8(ascii: "x")
        }
        let container = try ImageDecoder.decode(data)
        #expect(container.gainMap == nil)
        #expect(container.repairs.map(\.description).contains { $0.contains("GainMapMax is not a number") })
    }

    @Test func aJPEGWithoutAGainMapHasNoneAndNoRepair() throws {
        let container = try ImageDecoder.decode(try Fixture.named("jpeg-baseline").data())
        #expect(container.gainMap == nil)
        #expect(container.repairs.isEmpty)
        #expect(JPEGGainMapReader.read(try Fixture.named("jpeg-progressive").data()) == .none)
        let details = try #require(ImageHeader.details(try Fixture.named("jpeg-baseline").data()))
        #expect(details.gainMap == nil && details.gainMapProblem == nil)
    }

    /// Elements instead of attributes, three channels as `rdf:Seq`, another prefix, an HDR base.
    @Test func xmpElementsAndPerChannelSequences() throws {
        let xmp = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:g = 'http://ns.adobe.com/hdr-gain-map/1.0/'>
            <g:Version>1.0</g:Version>
            <g:GainMapMax><rdf:Seq><rdf:li>1.5</rdf:li><rdf:li>2</rdf:li><rdf:li> 2.5 </rdf:li></rdf:Seq></g:GainMapMax>
            <g:Gamma>2</g:Gamma><g:OffsetSDR>0.25</g:OffsetSDR>
            <g:HDRCapacityMin>0.5</g:HDRCapacityMin><g:HDRCapacityMax>3</g:HDRCapacityMax>
            <g:BaseRenditionIsHDR>True</g:BaseRenditionIsHDR>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let metadata = try #require(GainMapXMP.read(xmp)).get()
        #expect(metadata.channels.map(\.gainMapMax) == [1.5, 2, 2.5])
        #expect(metadata.channels.allSatisfy { $0.gainMapMin == 0 && $0.gamma == 2 })
        // An HDR base: hdrgm's SDR offset and capacities belong to the alternate rendition.
        #expect(metadata.baseRenditionIsHDR)
        #expect(metadata.channels[0].alternateOffset == 0.25 && metadata.channels[0].baseOffset == 1.0 / 64)
        #expect(metadata.baseHeadroom == 3 && metadata.alternateHeadroom == 0.5)

        #expect(GainMapXMP.read("<x:xmpmeta/>") == nil)  // no hdrgm namespace: no gain map metadata
        let twoValues = xmp.replacingOccurrences(of: "<rdf:li> 2.5 </rdf:li>", with: "")
        #expect(throws: GainMapProblem.self) { try #require(GainMapXMP.read(twoValues)).get() }
        let noMaximum = xmp.replacingOccurrences(of: "GainMapMax>", with: "GainMapMix>")
        #expect(throws: GainMapProblem.self) { try #require(GainMapXMP.read(noMaximum)).get() }
    }

    /// Three channels with one common denominator, then every shorter payload refused.
    @Test func isoThreeChannelsCommonDenominatorAndEveryTruncation() throws {
        var payload: [UInt8] = [0, 0, 0, 0, 0x80 | 0x08]
        func u32(_ value: Int32) { payload += withUnsafeBytes(of: UInt32(bitPattern: value).bigEndian, Array.init) }
        u32(4)  // the denominator
        u32(0)
        u32(8)  // headrooms 0 and 2
        for channel in Int32(0)..<3 { [0, 4 + channel, 4, 1, -1].forEach(u32) }
        let reading = try GainMapISOMetadata.read(payload[...]).get()
        guard case .metadata(let metadata) = reading else { Issue.record("no metadata: \(reading)"); return }
        #expect(metadata.channels.map(\.gainMapMax) == [1, 1.25, 1.5])
        #expect(metadata.channels.allSatisfy { $0.gamma == 1 && $0.baseOffset == 0.25 && $0.alternateOffset == -0.25 })
        #expect(metadata.alternateHeadroom == 2 && !metadata.usesBaseColorSpace)
        #expect(GainMapISOMetadata.read(payload[..<4]) == .success(.versionOnly))
        for count in 5..<payload.count {
            #expect(throws: GainMapProblem.self) { try GainMapISOMetadata.read(payload[..<count]).get() }
        }
    }
}
