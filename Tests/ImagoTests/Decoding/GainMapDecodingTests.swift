import Foundation
import Testing

@testable import Imago

/// Ultra HDR JPEGs made by libultrahdr (Fixtures/gainmap, `make-gainmap-fixtures.py`): the gain map
/// is read with the metadata libvips' `uhdrload` reports, decoded at the base's reduction, and
/// kept through the geometry processors at its own scale.
@Suite struct GainMapDecodingTests {
    /// What libvips reported about one fixture (`reference.json`).
    struct Reference: Decodable {
        let width: Int
        let height: Int
        let gainmapWidth: Int
        let gainmapHeight: Int
        let gainmapMean: Double
        let maxContentBoost: [Double]
        let minContentBoost: [Double]
        let gamma: [Double]
        let offsetSDR: [Double]
        let offsetHDR: [Double]
        let capacityMin: Double
        let capacityMax: Double
        let usesBaseColorSpace: Int

        enum CodingKeys: String, CodingKey {
            case width, height, gainmapWidth, gainmapHeight, gainmapMean
            case maxContentBoost = "gainmap-max-content-boost", minContentBoost = "gainmap-min-content-boost"
            case gamma = "gainmap-gamma", offsetSDR = "gainmap-offset-sdr", offsetHDR = "gainmap-offset-hdr"
            case capacityMin = "gainmap-hdr-capacity-min", capacityMax = "gainmap-hdr-capacity-max"
            case usesBaseColorSpace = "gainmap-use-base-cg"
        }

        static func named(_ file: String) throws -> Reference {
            let all = try JSONDecoder().decode([String: Reference].self, from: try Fixture.data("gainmap/reference.json"))
            return try #require(all[file])
        }
    }

    static func data(_ file: String) throws -> Data { try Fixture.data("gainmap/" + file) }

    @Test(arguments: [
        ("ultrahdr-64x48.jpg", GainMap.Metadata.Source.iso21496), ("ultrahdr-96x64.jpg", .iso21496),
        ("ultrahdr-64x48-xmp.jpg", .hdrgmXMP),
    ])
    func readsTheMapAndItsMetadataAsLibvipsDoes(_ file: String, _ source: GainMap.Metadata.Source) throws {
        let reference = try Reference.named(file)
        let container = try ImageDecoder.decode(try Self.data(file))
        #expect(container.pixelSize == PixelSize(width: reference.width, height: reference.height))
        #expect(container.repairs.isEmpty)
        let map = try #require(container.gainMap)
        #expect(map.pixelSize == PixelSize(width: reference.gainmapWidth, height: reference.gainmapHeight))
        #expect(map.metadata.sources == [source])
        // The header's details find the same map without decoding it.
        let details = try #require(ImageHeader.details(try Self.data(file)))
        #expect(details.gainMap == ImageHeader.Details.GainMapDetails(pixelSize: map.pixelSize, metadata: map.metadata))
        #expect(details.gainMapProblem == nil)
        #expect(map.metadata.usesBaseColorSpace == (reference.usesBaseColorSpace != 0))
        #expect(!map.metadata.baseRenditionIsHDR)
        // libvips reports boosts and capacities linear; the files store log2.
        for (index, channel) in map.metadata.channels.enumerated() {
            #expect(abs(exp2(channel.gainMapMax) - reference.maxContentBoost[index]) < 1e-3)
            #expect(abs(exp2(channel.gainMapMin) - reference.minContentBoost[index]) < 1e-3)
            #expect(abs(channel.gamma - reference.gamma[index]) < 1e-6)
            #expect(abs(channel.baseOffset - reference.offsetSDR[index]) < 1e-6)
            #expect(abs(channel.alternateOffset - reference.offsetHDR[index]) < 1e-6)
        }
        #expect(abs(exp2(map.metadata.baseHeadroom) - reference.capacityMin) < 1e-3)
        #expect(abs(exp2(map.metadata.alternateHeadroom) - reference.capacityMax) < 1e-3)
        // The map is grey and not flat: the fixture's highlights are brighter than SDR white.
        let pixels = map.bitmap.pixels
        let offsets = Array(stride(from: 0, to: pixels.count, by: 4))
        let grey = offsets.allSatisfy { (offset: Int) -> Bool in pixels[offset] == pixels[offset + 1] && pixels[offset] == pixels[offset + 2] }
        #expect(grey)
        let levels = offsets.map { (offset: Int) -> UInt8 in pixels[offset] }
        #expect(Set(levels).count > 2)
        // The same values libvips decodes: no colour conversion, no turn, no resampling.
        let mean = Double(levels.reduce(0) { $0 + Int($1) }) / Double(levels.count)
        #expect(abs(mean - reference.gainmapMean) < 0.5)
        #expect(container.cost == reference.width * reference.height * 4 + map.bitmap.byteCount)
    }

    /// A thumbnail decode takes the map at the base's DCT scale: 64x48 at 4/8 is 32x24, its
    /// 16x12 map 8x6; at 1/8, 8x6 and 2x2.
    @Test(arguments: [(32, 32, 24, 8, 6), (8, 8, 6, 2, 2)])
    func aThumbnailDecodeTakesTheMapAtTheSameScale(_ target: Int, _ width: Int, _ height: Int, _ mapWidth: Int, _ mapHeight: Int) throws {
        let container = try ImageDecoder.decode(try Self.data("ultrahdr-64x48.jpg"), maximumPixelSize: target)
        #expect(container.pixelSize == PixelSize(width: width, height: height))
        #expect(container.gainMap?.pixelSize == PixelSize(width: mapWidth, height: mapHeight))
    }

    @Test func thumbnailAndResizeKeepTheMapAtItsOwnScale() throws {
        let container = try ImageDecoder.decode(try Self.data("ultrahdr-96x64.jpg"))  // map 48x32
        let thumbnail = try ThumbnailProcessor(maximumPixelSize: 24).process(container)
        #expect(thumbnail.pixelSize == PixelSize(width: 24, height: 16))
        #expect(thumbnail.gainMap?.pixelSize == PixelSize(width: 12, height: 8))
        #expect(thumbnail.gainMap?.metadata == container.gainMap?.metadata)

        let filled = try ImageProcessors.Resize(size: PixelSize(width: 32, height: 32), contentMode: .aspectFill, crop: true).process(container)
        #expect(filled.pixelSize == PixelSize(width: 32, height: 32))
        #expect(filled.gainMap?.pixelSize == PixelSize(width: 16, height: 16))
    }

    @Test func cropAndRotateKeepTheMapInPlace() throws {
        let container = try ImageDecoder.decode(try Self.data("ultrahdr-64x48.jpg"))  // map 16x12
        let cropped = try ImageProcessors.Crop(x: 32, y: 0, width: 32, height: 24).process(container)
        #expect(cropped.gainMap?.pixelSize == PixelSize(width: 8, height: 6))
        // The fixture brightens to the right: the right half's map is brighter than the whole's.
        let whole = try #require(container.gainMap).bitmap.pixels
        let right = try #require(cropped.gainMap).bitmap.pixels
        #expect(right.reduce(0) { $0 + Int($1) } / right.count > whole.reduce(0) { $0 + Int($1) } / whole.count)

        let turned = try ImageProcessors.Rotate(degrees: 90).process(container)
        #expect(turned.pixelSize == PixelSize(width: 48, height: 64))
        #expect(turned.gainMap?.bitmap == (try ImageProcessors.Rotate(degrees: 90).process(try #require(container.gainMap).bitmap)))
    }

    /// Padding pads the map by the same share of its size with the value of no gain: 0 for this
    /// file's range (0 to 5.6 stops); a quarter of the range for one from -1 to 3 stops.
    @Test func paddingPadsTheMapWithNoGain() throws {
        let container = try ImageDecoder.decode(try Self.data("ultrahdr-64x48.jpg"))  // map 16x12
        let map = try #require(container.gainMap)
        let padded = try ImageProcessors.Padding(top: 8, right: 0, bottom: 0, left: 16).process(container)
        #expect(padded.pixelSize == PixelSize(width: 80, height: 56))
        let paddedMap = try #require(padded.gainMap)
        #expect(paddedMap.pixelSize == PixelSize(width: 20, height: 14))
        #expect(paddedMap.bitmap.pixels[0..<4] == [0, 0, 0, 255])
        let row = (2 * 20 + 4) * 4  // the old map's first pixel
        #expect(Array(paddedMap.bitmap.pixels[row..<(row + 16 * 4)]) == Array(map.bitmap.pixels[0..<(16 * 4)]))

        var negative = map
        negative.metadata.channels = [.init(gainMapMin: -1, gainMapMax: 3)]
        #expect(negative.neutralValue == RGBA(64, 64, 64))
    }

    /// A watermark keeps the map and lays its shape over it in the value of no gain (0 for this
    /// file's range), at the map's scale and with its opacity; the rest of the map is unchanged.
    @Test func aWatermarkIsDrawnIntoTheMapAsNoGain() throws {
        let container = try ImageDecoder.decode(try Self.data("ultrahdr-64x48.jpg"))  // map 16x12
        let map = try #require(container.gainMap).bitmap
        let mark = Bitmap(width: 16, height: 12, fill: RGBA(255, 255, 255))
        // At the map's quarter scale the 16x12 mark at (40, 28) covers 4x3 pixels at (10, 7).
        let under = (x: 10..<14, y: 7..<10)
        #expect(under.x.contains { x in map[x, 8].r > 16 }, "the map brightens under the mark")
        let marked = try #require(try ImageProcessors.Watermark(image: mark, placement: .at(x: 40, y: 28)).process(container).gainMap)
        #expect(marked.pixelSize == PixelSize(width: 16, height: 12))
        for y in 0..<12 {
            for x in 0..<16 {
                let inside = under.x.contains(x) && under.y.contains(y)
                #expect(marked.bitmap[x, y] == (inside ? RGBA(0, 0, 0) : map[x, y]), "\(x),\(y)")
            }
        }
        let half = try #require(
            try ImageProcessors.Watermark(image: mark, opacity: 0.5, placement: .at(x: 40, y: 28)).process(container).gainMap)
        #expect(abs(Int(half.bitmap[12, 8].r) - Int(map[12, 8].r) / 2) <= 1, "half the gain's encoding at half opacity")
    }

    /// Blur keeps the map as it is; a processor that does not say what it does to a map (padding,
    /// a custom one) drops it.
    @Test func toneChangingOrUnknownProcessorsDropTheMap() throws {
        let container = try ImageDecoder.decode(try Self.data("ultrahdr-64x48.jpg"))
        #expect(try ImageProcessors.GaussianBlur(sigma: 1).process(container).gainMap == container.gainMap)
        struct Invert: BitmapProcessing {
            var identifier: String { "invert" }
            func process(_ bitmap: Bitmap) -> Bitmap { bitmap }
        }
        #expect(try Invert().process(container).gainMap == nil)
    }

    @Test func theDecodedOriginalsTierShrinksTheMapWithItsEntry() throws {
        let container = try ImageDecoder.decode(try Self.data("ultrahdr-96x64.jpg"))
        let map = container.gainMap(resampledFrom: container.pixelSize, to: PixelSize(width: 24, height: 16))
        #expect(map?.pixelSize == PixelSize(width: 12, height: 8))
    }

    /// Through the pipeline: a thumbnail (decoded at 2/8, so the 48x32 map at 2/8 too) and a
    /// resize served from the tier of decoded originals (at 1/2) both carry the map at their scale.
    @Test func thePipelineCarriesTheMapToThumbnailsAndResizedVariants() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set("/hdr.jpg", data: try Self.data("ultrahdr-96x64.jpg"), contentType: "image/jpeg")
            let url = fixture.server.url(for: "/hdr.jpg")
            let pipeline = ImagePipeline(configuration: try fixture.configuration())
            let thumbnail = try await pipeline.image(for: ImageRequest(url: url, maximumPixelSize: 24)).container
            #expect(thumbnail.pixelSize == PixelSize(width: 24, height: 16))
            #expect(thumbnail.gainMap?.pixelSize == PixelSize(width: 12, height: 8))
            let resize = ImageProcessors.Resize(size: PixelSize(width: 40, height: 40), contentMode: .aspectFit)
            let resized = try await pipeline.image(for: ImageRequest(url: url, processors: [resize])).container
            #expect(resized.pixelSize == PixelSize(width: 40, height: 27))
            #expect(resized.gainMap?.pixelSize == PixelSize(width: 20, height: 14))
        }
    }
}
