import Foundation
import Testing

@testable import Imago

/// Damaged PNGs decode the way browsers show them under the default lenient policy (rows up to
/// the first bad one, the rest transparent; CRC and Adler-32 mismatches ignored), with the repair
/// listed; the strict policy keeps libpng's errors. Adam7 files reduce pass by pass.
@Suite struct PNGLeniencyTests {
    static let picture = gradientBitmap(width: 61, height: 40, alpha: true)

    static func decode(_ data: Data, policy: DecodingPolicy = .lenient, target: Int? = nil) throws -> ImageContainer {
        try ImageDecoder.decode(data, maximumPixelSize: target, policy: policy)
    }

    /// Rows `0..<rows` of `bitmap`, the rest transparent black.
    static func keeping(_ rows: Int, of bitmap: Bitmap) -> Bitmap {
        var pixels = bitmap.pixels
        for index in (rows * bitmap.bytesPerRow)..<pixels.count { pixels[index] = 0 }
        return Bitmap(width: bitmap.width, height: bitmap.height, alphaMode: .straight, pixels: pixels)
    }

    @Test func cleanFileHasNoRepairs() throws {
        let container = try Self.decode(PNGBuilder(Self.picture).data)
        #expect(try container.bitmap() == Self.picture)
        #expect(container.repairs.isEmpty)
    }

    /// A bad adaptive filter value at row 17: rows 0–16 shown, 17–39 transparent.
    @Test(arguments: [1, 17, 39])
    func badFilterByteKeepsTheRowsBefore(_ row: Int) throws {
        var builder = PNGBuilder(Self.picture)
        builder.filterBytes = [row: 9]
        let container = try Self.decode(builder.data)
        #expect(try container.bitmap() == Self.keeping(row, of: Self.picture))
        #expect(container.repairs == [ImageContainer.Repair(.missingRows(row..<40))])
        let error = #expect(throws: ImagePipeline.Error.self) { try Self.decode(builder.data, policy: .strict) }
        #expect(error?.description.contains("bad adaptive filter value") == true, "\(String(describing: error))")
    }

    /// A bad filter byte in the very first row leaves nothing to show: an error under both policies.
    @Test func badFirstRowIsAnError() throws {
        var builder = PNGBuilder(Self.picture)
        builder.filterBytes = [0: 9]
        #expect(throws: ImagePipeline.Error.self) { try Self.decode(builder.data) }
    }

    /// The file cut inside its image data: the rows that arrived, the rest transparent.
    @Test func truncatedDataKeepsTheRowsThatArrived() throws {
        let builder = PNGBuilder(Self.picture)
        let rowBytes = 1 + 61 * 4
        // zlib header + stored block header, then 10.5 rows.
        let cut = builder.idatDataOffset + 2 + 5 + rowBytes * 10 + rowBytes / 2
        let data = builder.data.prefix(cut)
        let container = try Self.decode(data)
        #expect(try container.bitmap() == Self.keeping(10, of: Self.picture))
        #expect(container.repairs == [ImageContainer.Repair(.missingRows(10..<40))])
        #expect(throws: ImagePipeline.Error.self) { try Self.decode(data, policy: .strict) }
    }

    /// A wrong IDAT CRC or tEXt CRC is ignored and reported; strict refuses the IDAT one.
    @Test(arguments: [true, false])
    func checksumMismatchIsIgnored(_ idat: Bool) throws {
        var builder = PNGBuilder(Self.picture)
        if idat { builder.badIDATChecksum = true } else { builder.badTextChecksum = true }
        let container = try Self.decode(builder.data)
        #expect(try container.bitmap() == Self.picture)
        #expect(container.repairs == [ImageContainer.Repair(.ignoredChecksum)])
        if idat {
            let error = #expect(throws: ImagePipeline.Error.self) { try Self.decode(builder.data, policy: .strict) }
            #expect(error?.description.contains("CRC") == true, "\(String(describing: error))")
        }
    }

    /// A wrong CRC on the header (IHDR) is refused under both policies, as Chromium refuses
    /// PngSuite's xhdn0g08; the same file with its CRC put right decodes.
    @Test(arguments: [DecodingPolicy.lenient, .strict])
    func headerChecksumMismatchIsRefused(_ policy: DecodingPolicy) throws {
        let damaged = try Data(contentsOf: Fixture.folder.appendingPathComponent("pngsuite/xhdn0g08.png"))
        let error = #expect(throws: ImagePipeline.Error.self) { try Self.decode(damaged, policy: policy) }
        #expect(error?.description.contains("CRC") == true, "\(String(describing: error))")
        var repaired = [UInt8](damaged)
        let crc = PNGBuilder.crc32(Array(repaired[12..<29]))
        repaired.replaceSubrange(29..<33, with: withUnsafeBytes(of: crc.bigEndian, Array.init))
        #expect(try Self.decode(Data(repaired), policy: policy).pixelSize == PixelSize(width: 32, height: 32))
    }

    /// A wrong zlib Adler-32 is not even checked leniently (Chromium and libvips skip it too);
    /// strict keeps libpng's verdict, an "incorrect data check" error.
    @Test func adlerMismatchIsIgnored() throws {
        var builder = PNGBuilder(Self.picture)
        builder.badAdler = true
        let lenient = try Self.decode(builder.data)
        #expect(try lenient.bitmap() == Self.picture, "\(lenient.repairs)")
        #expect(throws: ImagePipeline.Error.self) { try Self.decode(builder.data, policy: .strict) }
    }

    /// Adam7: every pass scattered into place (no target) gives the image, and with a target the
    /// per-pass block sums equal reducing the full image.
    @Test(arguments: [false, true])
    func interlacedEqualsTheImage(_ alpha: Bool) throws {
        let picture = gradientBitmap(width: 61, height: 40, alpha: alpha)
        var builder = PNGBuilder(picture)
        builder.interlaced = true
        let full = try Self.decode(builder.data).bitmap()
        #expect(full.pixels == picture.pixels)
        let reduced = try Self.decode(builder.data, target: 10)
        #expect(try reduced.bitmap().pixels == BoxReducer.reduce(picture, factor: 3).pixels)
        #expect(reduced.repairs.isEmpty)
    }

    /// A large Adam7 thumbnail holds the reduced image's sums, never the full image.
    @Test func largeInterlacedThumbnailNeverHoldsTheFullImage() async throws {
        try await offThePool {
            var builder = PNGBuilder(gradientBitmap(width: 800, height: 600))
            builder.interlaced = true
            let context = DecodingContext(format: .png, maximumPixelSize: 64)
            let (container, workingSize) = try PNGDecoder().decodeMeasuringWork(builder.data, context: context)
            #expect(try container.bitmap().width == 134)
            // Factor 6: 16 bytes of sums per reduced pixel stand for 36 source pixels (144 bytes).
            #expect(workingSize < 800 * 600 * 4 / 4, "working size \(workingSize)")
        }
    }

    /// Adam7 cut short: the passes that arrived, averaged per block; strict fails.
    @Test func truncatedInterlacedKeepsItsPasses() throws {
        var builder = PNGBuilder(gradientBitmap(width: 61, height: 40))
        builder.interlaced = true
        let data = builder.data.prefix(builder.data.count * 3 / 4)
        let container = try Self.decode(data, target: 10)
        let bitmap = try container.bitmap()
        #expect(bitmap.width == 21 && bitmap.height == 14)
        // Passes 1-6 (the first half of the data) cover an even row of every 3x3 block, and the
        // cut is in pass 7 (odd rows): only the last block row (row 39 alone) got nothing.
        let alphas = stride(from: 3, to: bitmap.pixels.count, by: 4).map { bitmap.pixels[$0] }
        #expect(alphas.prefix(21 * 13).allSatisfy { $0 == 255 })
        #expect(alphas.suffix(21).allSatisfy { $0 == 0 })
        #expect(container.repairs.count == 1)
        #expect(throws: ImagePipeline.Error.self) { try Self.decode(data, policy: .strict, target: 10) }
    }

    /// The lenient fast path (ISA-L inflate, unfiltering in the shim) gives libpng's pixels: each
    /// PNG fixture and the builder's files decoded leniently equal the strict (libpng) decode,
    /// at full size and reduced.
    @Test(arguments: Fixture.all.filter { $0.file.hasSuffix(".png") })
    func lenientEqualsStrictOnCleanFiles(_ fixture: Fixture) throws {
        let data = try fixture.data()
        for target in [nil, 4] as [Int?] {
            let lenient = try Self.decode(data, target: target)
            let strict = try Self.decode(data, policy: .strict, target: target)
            #expect(try lenient.bitmap() == strict.bitmap(), "\(fixture.name) target \(String(describing: target))")
            #expect(lenient.repairs.isEmpty)
        }
    }

    /// Every filter type (none, sub, up, average, Paeth) in one file, from a deflate stream
    /// that zlib wrote: the fast path unfilters as libpng does.
    @Test func everyFilterTypeMatchesLibpng() throws {
        let picture = gradientBitmap(width: 97, height: 50, alpha: true)
        let rgb = gradientBitmap(width: 97, height: 50, alpha: false)
        for bitmap in [picture, rgb] {
            let encoded = try PNGEncoder().encode(bitmap)
            let lenient = try Self.decode(encoded).bitmap()
            let strict = try Self.decode(encoded, policy: .strict).bitmap()
            #expect(lenient == strict)
            #expect(lenient.pixels == bitmap.pixels)
        }
    }
}
