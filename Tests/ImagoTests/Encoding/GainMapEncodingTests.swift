import Foundation
import Testing

@testable import Imago

/// Gain-map JPEGs written by Imago (``GainMapJPEGWriter``): read back by Imago with the same map
/// and metadata, laid out as libultrahdr lays them out (MPF offsets, both kinds of metadata), and
/// never written into formats that cannot carry a map.
@Suite struct GainMapEncodingTests {
    static func decoded(_ file: String) throws -> ImageContainer {
        try ImageDecoder.decode(try Fixture.data("gainmap/" + file))
    }

    /// Whether two metadata values agree within what their rationals and decimals round away.
    static func agree(_ a: GainMap.Metadata, _ b: GainMap.Metadata) -> Bool {
        func close(_ x: Double, _ y: Double) -> Bool { abs(x - y) <= 1e-6 * max(1, abs(x)) }
        guard a.channels.count == b.channels.count, a.baseRenditionIsHDR == b.baseRenditionIsHDR,
            a.usesBaseColorSpace == b.usesBaseColorSpace, close(a.baseHeadroom, b.baseHeadroom),
            close(a.alternateHeadroom, b.alternateHeadroom)
        else { return false }
        return zip(a.channels, b.channels).allSatisfy { x, y in
            close(x.gainMapMin, y.gainMapMin) && close(x.gainMapMax, y.gainMapMax) && close(x.gamma, y.gamma)
                && close(x.baseOffset, y.baseOffset) && close(x.alternateOffset, y.alternateOffset)
        }
    }

    @Test(arguments: ["ultrahdr-64x48.jpg", "ultrahdr-96x64.jpg", "ultrahdr-64x48-xmp.jpg"])
    func imagoReadsBackItsOwnGainMapJPEG(_ file: String) throws {
        let original = try Self.decoded(file)
        let map = try #require(original.gainMap)
        let written = try original.encoded(as: .jpeg)
        let back = try ImageDecoder.decode(written)
        #expect(back.repairs.isEmpty)
        #expect(back.pixelSize == original.pixelSize)
        let backMap = try #require(back.gainMap)
        #expect(backMap.pixelSize == map.pixelSize)
        // Both kinds of metadata are written; ISO 21496-1 is the one read.
        #expect(backMap.metadata.sources == [.iso21496, .hdrgmXMP])
        #expect(Self.agree(backMap.metadata, map.metadata))
        // The map's pixels survive a JPEG round trip closely (a smooth 8-bit map).
        let difference = zip(backMap.bitmap.pixels, map.bitmap.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 255
        #expect(difference <= 12)
    }

    @Test func eachKindOfMetadataAloneGivesTheSameValues() throws {
        let map = try #require(try Self.decoded("ultrahdr-96x64.jpg").gainMap)
        let payload = try #require(GainMapISOMetadata.payload(for: map.metadata))
        guard case .success(.metadata(let iso)) = GainMapISOMetadata.read(payload[...]) else {
            Issue.record("the written ISO 21496-1 metadata does not read back")
            return
        }
        #expect(Self.agree(iso, map.metadata))
        let xmp = try #require(GainMapXMP.read(GainMapXMP.gainMapPacket(for: map.metadata))).get()
        #expect(Self.agree(xmp, map.metadata))
        #expect(GainMapXMP.declaresVersion(GainMapXMP.primaryPacket(gainMapLength: 1000)))
    }

    @Test func multichannelAndBackwardMetadataRoundTrip() throws {
        let metadata = GainMap.Metadata(
            channels: [
                .init(gainMapMin: -0.5, gainMapMax: 2.25, gamma: 1.5, baseOffset: 0.01, alternateOffset: 0.02),
                .init(gainMapMin: 0, gainMapMax: 3, gamma: 1, baseOffset: 1.0 / 64, alternateOffset: 1.0 / 64),
                .init(gainMapMin: 0.125, gainMapMax: 4.75, gamma: 2, baseOffset: 0, alternateOffset: 0),
            ], baseHeadroom: 3.5, alternateHeadroom: 0, baseRenditionIsHDR: true, usesBaseColorSpace: false)
        let payload = try #require(GainMapISOMetadata.payload(for: metadata))
        guard case .success(.metadata(let iso)) = GainMapISOMetadata.read(payload[...]) else {
            Issue.record("the written ISO 21496-1 metadata does not read back")
            return
        }
        #expect(Self.agree(iso, metadata))
        var xmp = try #require(GainMapXMP.read(GainMapXMP.gainMapPacket(for: metadata))).get()
        xmp.usesBaseColorSpace = false  // hdrgm cannot say it; ISO 21496-1 does
        #expect(Self.agree(xmp, metadata))
        // A value ISO 21496-1 cannot store: the metadata is not written.
        var negative = metadata
        negative.baseHeadroom = -1
        #expect(GainMapISOMetadata.payload(for: negative) == nil)
    }

    @Test func theMPFIndexListsBothImagesWhereTheyAre() throws {
        let written = try Self.decoded("ultrahdr-64x48.jpg").encoded(as: .jpeg, quality: 0.9)
        guard case .found(let found) = JPEGGainMapReader.read(written) else {
            Issue.record("no gain map found in Imago's output")
            return
        }
        // The gain map is the file's tail, a JPEG of its own, one component for a 1-channel map.
        #expect(found.range.upperBound == written.count)
        let map = written[written.startIndex + found.range.lowerBound..<written.endIndex]
        #expect(map.starts(with: [0xFF, 0xD8, 0xFF, 0xE1]))
        let header = try #require(ImageHeader.probe(Data(map)))
        #expect(header.width == 16 && header.height == 12)
        let startOfFrame = try #require(map.firstRange(of: [0xFF, 0xC0]))
        #expect(map[startOfFrame.lowerBound + 9] == 1)  // components
        // The primary image ends with EOI just before it.
        #expect(written[written.startIndex + found.range.lowerBound - 2] == 0xFF)
        #expect(written[written.startIndex + found.range.lowerBound - 1] == 0xD9)
    }

    @Test(arguments: [ImageFormat.png, .webp])
    func formatsThatCannotCarryAMapGetTheBaseAlone(_ format: ImageFormat) throws {
        let original = try Self.decoded("ultrahdr-64x48.jpg")
        var withoutMap = original
        withoutMap.gainMap = nil
        let written = try original.encoded(as: format)
        #expect(written == (try withoutMap.encoded(as: format)))
        let back = try ImageDecoder.decode(written)
        #expect(back.gainMap == nil)
        // The base's pixels, not the map applied: PNG keeps them exactly.
        if format == .png { #expect(try back.bitmap().pixels == original.bitmap().pixels) }
    }

    @Test func aContainerWithoutAMapIsAPlainJPEG() throws {
        var container = try Self.decoded("ultrahdr-64x48.jpg")
        container.gainMap = nil
        let written = try container.encoded(as: .jpeg)
        #expect(JPEGGainMapReader.read(written) == .none)
        #expect(written.firstRange(of: Data("MPF".utf8)) == nil)
    }

    /// The disk cache's processed variants are written as `encoded(as: .jpeg)` writes them: a
    /// thumbnail read back from disk still has its map.
    @Test func aProcessedVariantOnDiskKeepsTheMap() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set("/hdr.jpg", data: try Fixture.data("gainmap/ultrahdr-96x64.jpg"), contentType: "image/jpeg")
            var configuration = try fixture.configuration()
            configuration.storesProcessedImagesOnDisk = true
            let pipeline = ImagePipeline(configuration: configuration)
            let request = ImageRequest(url: fixture.server.url(for: "/hdr.jpg"), maximumPixelSize: 24)
            _ = try await pipeline.image(for: request)
            await pipeline.waitForDiskWrites()
            let stored = try #require(pipeline.diskCache?.data(forKey: request.processedKey))
            let reread = try ImageDecoder.decode(stored)
            #expect(reread.pixelSize == PixelSize(width: 24, height: 16))
            #expect(reread.gainMap?.pixelSize == PixelSize(width: 12, height: 8))
        }
    }
}
