#if os(Linux)
import Foundation
import Testing

@testable import Imago

/// Reading, filtering and writing a source's EXIF, XMP and IPTC (``ImageMetadata``): the fixture
/// `metadata/copyright.jpg` (Fixtures/metadata/make-copyright-jpeg.py) carries EXIF Make,
/// Orientation 6, Artist, Copyright and a GPS IFD; XMP dc:rights, dc:creator, dc:subject,
/// xmp:CreatorTool, xmpRights:Marked; IPTC 1:90, 2:80, 2:25, 2:116.
@Suite struct ImageMetadataTests {
    static func fixture() throws -> Data { try Fixture.data("metadata/copyright.jpg") }

    static func source() throws -> ImageMetadata { try #require(ImageMetadata.read(from: try fixture())) }

    /// IFD0's tags of a TIFF structure, either byte order (a test reader, independent of the filter's).
    static func tags(_ tiff: [UInt8]) -> [Int] {
        let big = tiff.starts(with: [0x4D, 0x4D])
        func u16(_ at: Int) -> Int { big ? Int(tiff[at]) << 8 | Int(tiff[at + 1]) : Int(tiff[at + 1]) << 8 | Int(tiff[at]) }
        func u32(_ at: Int) -> Int { big ? u16(at) << 16 | u16(at + 2) : u16(at + 2) << 16 | u16(at) }
        let ifd = u32(4)
        return (0..<u16(ifd)).map { u16(ifd + 2 + $0 * 12) }
    }

    /// The (record, dataset) pairs of IPTC records.
    static func datasets(_ iptc: [UInt8]) throws -> [[UInt8]] {
        try #require(IPTCFilter.records(iptc)).map { [iptc[$0.lowerBound + 1], iptc[$0.lowerBound + 2]] }
    }

    @Test func readsTheJPEGsThreeBlocks() throws {
        let metadata = try Self.source()
        #expect(Self.tags(try #require(metadata.exif)) == [0x010F, 0x0112, 0x013B, 0x8298, 0x8825])
        #expect(String(decoding: try #require(metadata.xmp), as: UTF8.self).contains("dc:subject"))
        #expect(try Self.datasets(try #require(metadata.iptc)) == [[1, 90], [2, 80], [2, 25], [2, 116]])
    }

    @Test func keepingCopyrightKeepsTheAuthorshipOnly() throws {
        let kept = try Self.source().keepingCopyright()
        let exif = try #require(kept.exif)
        #expect(Self.tags(exif) == [0x013B, 0x8298])
        let values = try #require(EXIFFilter.ifd0(exif, tags: [0x013B, 0x8298]))
        #expect(values.map { String(decoding: $0.value, as: UTF8.self) } == ["Ada Artist\0", "(c) Imago Test\0"])
        #expect(try Self.datasets(try #require(kept.iptc)) == [[1, 90], [2, 80], [2, 116]])
        let xmp = String(decoding: try #require(kept.xmp), as: UTF8.self)
        for kept in ["dc:rights", "&#169; Imago Test", "dc:creator", "Ada Artist", "xmpRights:Marked=\"True\""] {
            #expect(xmp.contains(kept), "\(kept) in \(xmp)")
        }
        for dropped in ["dc:subject", "secret keyword", "CreatorTool", "xmlns:xmp="] {
            #expect(!xmp.contains(dropped), "\(dropped) in \(xmp)")
        }
        #expect(XMPElement.parse(Array(xmp.utf8)) != nil, "the packet written reads back")
        #expect(ImageMetadata(exif: [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 0, 0]).keepingCopyright().isEmpty, "no authorship: nothing")
    }

    /// `sm:0`'s EXIF: the whole block, its Orientation written as 1 (the pixels are upright).
    @Test func uprightedSetsOrientationToOneAndKeepsTheRest() throws {
        let source = try Self.source()
        let upright = source.uprighted()
        #expect(upright.xmp == source.xmp && upright.iptc == source.iptc)
        let exif = try #require(upright.exif)
        let sourceEXIF = try #require(source.exif)
        #expect(exif.count == sourceEXIF.count && Self.tags(exif) == Self.tags(sourceEXIF))
        let jpeg = try MetadataEmbedder.embed(upright, in: JPEGEncoder().encode(Bitmap(width: 4, height: 4, fill: RGBA(9, 9, 9))), format: .jpeg)
        #expect(EXIFOrientation(jpeg: jpeg) == .up)
        #expect(EXIFOrientation(jpeg: try Self.fixture()) == .right)
    }

    /// Each writer's blocks read back as written, and the file still decodes to its size.
    @Test(arguments: ["jpeg", "png", "webp-lossy", "webp-lossless", "webp-extended"])
    func writtenBlocksReadBack(_ kind: String) throws {
        let source = try Self.source().uprighted()
        let bitmap = Bitmap(width: 5, height: 3, fill: RGBA(200, 10, 10, kind == "webp-extended" ? 128 : 255))
        let (format, encoded): (ImageFormat, Data) =
            switch kind {
            case "jpeg": (.jpeg, try JPEGEncoder().encode(bitmap))
            case "png": (.png, try PNGEncoder().encode(bitmap))
            case "webp-lossy": (.webp, try WebPEncoder().encode(bitmap))
            case "webp-extended":
                (.webp, try ColorProfileEmbedder.embed(Data(repeating: 1, count: 9), in: try WebPEncoder().encode(bitmap), format: .webp))
            default: (.webp, try WebPEncoder(isLossless: true).encode(bitmap))
            }
        let written = try MetadataEmbedder.embed(source, in: encoded, format: format)
        let read = try #require(ImageMetadata.read(from: written))
        #expect(read.exif == source.exif && read.xmp == source.xmp)
        #expect(read.iptc == (format == .jpeg ? source.iptc : nil), "IPTC only in JPEG")
        let decoded = try ImageDecoder.decode(written)
        #expect(decoded.pixelSize == PixelSize(width: 5, height: 3))
        #expect(try MetadataEmbedder.embed(source, in: encoded, format: .gif) == encoded, "GIF: nothing")
    }

    /// libvips writes a PNG's XMP in a compressed `zTXt` chunk, others in a compressed `iTXt`.
    @Test func compressedPNGTextIsInflated() throws {
        let packet = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        let compressed = try #require(ColorProfileEmbedder.deflate(Data(packet)))
        #expect(ImageMetadata.pngXMP(ImageMetadata.pngXMPKeyword + [0, 0] + compressed, isZTXt: true) == packet)
        #expect(ImageMetadata.pngXMP(ImageMetadata.pngXMPKeyword + [0, 1, 0, 0, 0] + compressed) == packet)
        #expect(ImageMetadata.pngXMP(ImageMetadata.pngXMPKeyword + [0, 0, 0, 0, 0] + packet) == packet)
        #expect(ImageMetadata.pngXMP(ImageMetadata.pngXMPKeyword + [0, 1, 0, 0, 0] + packet) == nil, "not a zlib stream")
        #expect(ImageMetadata.pngXMP(Array("Comment".utf8) + [0, 0, 0, 0, 0] + packet) == nil)
    }

    @Test(arguments: [
        "<!DOCTYPE x><x/>", "<a><![CDATA[x]]></a>", "<a>&foo;</a>", "<a></b>", "<a>", "<a b=\"<\"/>", "<a b='1' b='2'/>",
        "<a>]]></a>", "<?php x ?><a/>", "<a/><b/>", "text<a/>", "<a>&#0;</a>", "<:a/>", "<a:/>", "<a:b:c/>",
        String(repeating: "<a>", count: 70) + String(repeating: "</a>", count: 70),
    ])
    func theXMPReaderRefusesWhatItDoesNotUnderstand(_ text: String) {
        #expect(XMPElement.parse(Array(text.utf8)) == nil)
    }

    @Test func theXMPFilterFollowsNamespacesNotPrefixes() throws {
        let packet = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/" xmlns:R="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:p="http://purl.org/dc/elements/1.1/">
            <R:RDF><R:Description R:about="" xmlns:cc="http://creativecommons.org/ns#" p:title="t">
            <p:publisher><R:Bag><R:li>House</R:li></R:Bag></p:publisher><p:description>no</p:description>
            <cc:license R:resource="https://creativecommons.org/licenses/by/4.0/"/>
            <dc:creator xmlns:dc="http://example.com/not-dc/">fake</dc:creator>
            </R:Description></R:RDF></x:xmpmeta>
            """
        let kept = String(decoding: try #require(XMPFilter.copyright(Array(packet.utf8))), as: UTF8.self)
        #expect(kept.contains("<p:publisher><R:Bag><R:li>House</R:li></R:Bag></p:publisher>"))
        #expect(kept.contains("xmlns:p=\"http://purl.org/dc/elements/1.1/\"") && kept.contains("<cc:license R:resource="))
        #expect(!kept.contains("title") && !kept.contains("description>") && !kept.contains("fake"))
        #expect(XMPElement.parse(Array(kept.utf8)) != nil)
        #expect(XMPFilter.copyright(Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)) == nil)
    }

    /// Damaged blocks are dropped (or read up to the damage), never trapped on.
    @Test func damagedBlocksAreDropped() throws {
        let exif = try #require(try Self.source().exif)
        for cut in [4, 9, 20, 60, exif.count - 1] {
            _ = EXIFFilter.copyright(Array(exif.prefix(cut)))
            _ = EXIFFilter.uprighted(Array(exif.prefix(cut)))
        }
        #expect(EXIFFilter.copyright(Array(exif.prefix(20))) == nil)
        var farValue = exif
        farValue[8 + 2 + 3 * 12 + 8] = 0x7F  // Artist's value offset far past the end
        #expect(EXIFFilter.copyright(farValue) == nil)
        #expect(IPTCFilter.copyright([0x1C, 2, 80, 0xFF, 0xFF, 1]) == nil)
        #expect(IPTCFilter.copyright([0x1C, 2, 80, 0x80, 0x05, 1, 2, 3, 4, 5]) == nil)
        #expect(IPTCFilter.copyright([0x1C, 2, 80, 0x80, 0x02, 0, 1, 0x41, 0, 0]) == [0x1C, 2, 80, 0x80, 0x02, 0, 1, 0x41])
        #expect(PhotoshopResources.iptc(in: Array("8BIM".utf8) + [4, 4, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]) == nil)
        let fixture = try Self.fixture()
        for cut in stride(from: 2, to: 700, by: 37) { _ = ImageMetadata.read(from: fixture.prefix(cut)) }
    }

    /// The pipeline reads the blocks only when asked, under keys of their own, and carries them
    /// through processing.
    @Test func thePipelineCarriesTheBlocksWhenAsked() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set("/m.jpg", data: try Self.fixture(), contentType: "image/jpeg")
            let pipeline = try fixture.makePipeline()
            var asked = ImageRequest(url: fixture.server.url(for: "/m.jpg"), maximumPixelSize: 16)
            asked.readsMetadata = true
            let plain = ImageRequest(url: fixture.server.url(for: "/m.jpg"), maximumPixelSize: 16)
            #expect(asked.processedKey != plain.processedKey && asked.originalKey == plain.originalKey)
            let withBlocks = try await pipeline.image(for: asked).container
            let without = try await pipeline.image(for: plain).container
            let source = try Self.source()
            #expect(withBlocks.metadata == source && without.metadata == nil)
            #expect(withBlocks.pixelSize == PixelSize(width: 11, height: 16), "turned upright and reduced")
        }
    }
}
#endif
