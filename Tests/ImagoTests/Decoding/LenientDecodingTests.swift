import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// Damage at the source decodes the way browsers show it under the default (lenient) policy,
/// with each repair listed, and fails under `strict` exactly as before.
@Suite struct LenientDecodingTests {
    /// Lenient shows a picture with repairs exactly when strict refuses the file.
    static func expectLenientRepairsWhatStrictRefuses(
        _ data: Data, size: PixelSize, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ImageContainer {
        let container = try ImageDecoder.decode(data)
        #expect(container.pixelSize == size, "\(label)", sourceLocation: sourceLocation)
        #expect(!container.repairs.isEmpty, "\(label): a damaged file decoded without a repair", sourceLocation: sourceLocation)
        let error = #expect(throws: ImagePipeline.Error.self, "\(label)", sourceLocation: sourceLocation) {
            try ImageDecoder.decode(data, policy: .strict)
        }
        if case .decodingFailed = error {} else {
            Issue.record("\(label): strict gave \(String(describing: error))", sourceLocation: sourceLocation)
        }
        return container
    }

    // MARK: JPEG

    @Test(arguments: ["jpeg-baseline", "jpeg-progressive", "jpeg-cmyk", "jpeg-gray", "jpeg-ycck"])
    func truncatedJPEGShowsWhatDecoded(_ name: String) throws {
        let data = try Fixture.named(name).data()
        // Cut inside the scans: before its first scan a JPEG has no size yet, in a browser too.
        let sos = try #require(JPEGMarkers.offsets(of: 0xDA, in: [UInt8](data)).first)
        for fraction in [0.1, 0.5, 0.9] {
            let cut = data.prefix(sos + 20 + Int(Double(data.count - sos - 20) * fraction))
            _ = try Self.expectLenientRepairsWhatStrictRefuses(cut, size: PixelSize(width: 32, height: 24), "\(name) cut at \(fraction)")
        }
    }

    /// The rows that arrived are the picture's own; below them, libjpeg's grey.
    @Test func truncatedJPEGKeepsTheTopAndFillsGrey() throws {
        let whole = try Fixtures.jpeg(width: 320, height: 240, seed: 3)
        let clean = try ImageDecoder.decode(whole).bitmap()
        let container = try Self.expectLenientRepairsWhatStrictRefuses(
            whole.prefix(whole.count / 2), size: PixelSize(width: 320, height: 240), "half a JPEG")
        let bitmap = try container.bitmap()
        #expect(bitmap[5, 5] == clean[5, 5])
        let bottom = bitmap[319, 239]
        #expect(bottom.r == 128 && bottom.g == 128 && bottom.b == 128 && bottom.a == 255, "\(bottom)")
        #expect(container.repairs.contains { $0.description.localizedCaseInsensitiveContains("premature end") })
    }

    /// A corrupt entropy-coded segment: libjpeg resynchronises and the picture shows.
    @Test func corruptScanDataIsRepaired() throws {
        var bytes = [UInt8](try Fixtures.jpeg(width: 320, height: 240, seed: 4))
        let scan = try #require(JPEGMarkers.scanData(in: bytes))
        for index in stride(from: scan.lowerBound + scan.count / 3, to: scan.lowerBound + scan.count / 3 + 64, by: 1) {
            bytes[index] = UInt8(truncatingIfNeeded: index &* 37) | 0x01  // never 0xFF00 stuffing, sometimes 0xFF
        }
        let container = try Self.expectLenientRepairsWhatStrictRefuses(
            Data(bytes), size: PixelSize(width: 320, height: 240), "corrupt scan")
        #expect(container.repairs.contains { if case .corruptData = $0.kind { true } else { false } })
    }

    /// A later scan of a progressive file that libjpeg refuses: the scans before it show.
    @Test func progressiveJPEGStopsAtABadScanAndKeepsTheOthers() throws {
        var bytes = [UInt8](try Fixture.named("jpeg-progressive").data())
        let scans = JPEGMarkers.offsets(of: 0xDA, in: bytes)
        try #require(scans.count >= 3)
        // SOS: FF DA, length (2), component count (1), 2 bytes per component, then Ss, Se, Ah/Al.
        let sos = scans[2]
        let components = Int(bytes[sos + 4])
        bytes[sos + 5 + 2 * components] = 0x3F  // Ss = 63 ...
        bytes[sos + 6 + 2 * components] = 0x01  // ... Se = 1: invalid progression parameters
        let container = try Self.expectLenientRepairsWhatStrictRefuses(
            Data(bytes), size: PixelSize(width: 32, height: 24), "bad third scan")
        #expect(container.repairs.contains { $0.description.hasPrefix("corrupt data: decoding stopped") }, "\(container.repairs)")
    }

    /// Damage after the header but before any scan decodes: the size is known, so a browser
    /// shows a (grey) picture, and so does Imago.
    @Test func undefinedHuffmanTableStillShowsTheSize() throws {
        var bytes = [UInt8](try Fixtures.jpeg(width: 64, height: 48, seed: 5))
        let sos = try #require(JPEGMarkers.offsets(of: 0xDA, in: bytes).first)
        bytes[sos + 6] = 0x33  // the first component's DC/AC tables: 3 and 3, never defined
        let container = try Self.expectLenientRepairsWhatStrictRefuses(
            Data(bytes), size: PixelSize(width: 64, height: 48), "undefined Huffman table")
        #expect(container.repairs.contains(ImageContainer.Repair(.missingRows(0..<48))), "\(container.repairs)")
    }

    /// Lenient decoding at a DCT scale: the repairs count rows of the scaled output.
    @Test func truncatedJPEGAtAScale() throws {
        let whole = try Fixtures.jpeg(width: 320, height: 240, seed: 6)
        let container = try ImageDecoder.decode(whole.prefix(whole.count / 2), maximumPixelSize: 40)
        #expect(container.pixelSize == PixelSize(width: 40, height: 30))
        #expect(!container.repairs.isEmpty)
    }

    @Test func cleanJPEGHasNoRepairs() throws {
        for name in ["jpeg-baseline", "jpeg-progressive", "jpeg-cmyk"] {
            #expect(try ImageDecoder.decode(try Fixture.named(name).data()).repairs.isEmpty, "\(name)")
        }
    }

    // MARK: GIF

    /// A GIF whose only frame's data stops part-way: the pixels it has, transparent after them.
    @Test(arguments: [false, true])
    func gifFrameCutShortLeavesTheRestTransparent(interlaced: Bool) throws {
        var gif = GIFBuilder(width: 16, height: 16)
        gif.image(width: 16, height: 16, indices: [UInt8](repeating: 1, count: 256), interlaced: interlaced)
        // Keep the header, the first third of the image data, and end the file there.
        let cut = Data(gif.bytes.prefix(gif.bytes.count * 2 / 3))
        let container = try Self.expectLenientRepairsWhatStrictRefuses(cut, size: PixelSize(width: 16, height: 16), "cut frame")
        let bitmap = try container.bitmap()
        #expect(bitmap[0, 0] == RGBA(255, 0, 0, 255))
        #expect(bitmap[15, 15].a == 0)
        let missing = container.repairs.compactMap { if case .missingPixels(0, let count) = $0.kind { count } else { nil } }
        #expect(missing.count == 1 && missing[0] > 0 && missing[0] < 256, "\(container.repairs)")
    }

    /// "4499 of 4500": the LZW data ends one pixel early inside a file that is otherwise whole.
    @Test func gifFrameOnePixelShort() throws {
        var gif = GIFBuilder(width: 10, height: 10)
        gif.image(width: 10, height: 10, indices: [UInt8](repeating: 2, count: 99))
        let container = try Self.expectLenientRepairsWhatStrictRefuses(gif.data, size: PixelSize(width: 10, height: 10), "one short")
        #expect(container.repairs.contains(ImageContainer.Repair(.missingPixels(frame: 0, count: 1))), "\(container.repairs)")
        let bitmap = try container.bitmap()
        #expect(bitmap[8, 9] == RGBA(0, 255, 0, 255))
        #expect(bitmap[9, 9].a == 0)
    }

    /// An animation cut off inside its fourth frame keeps its three complete frames.
    @Test func truncatedAnimationKeepsItsCompleteFrames() throws {
        var gif = GIFBuilder(width: 8, height: 8)
        for index in [1, 2, 3, 1] as [UInt8] { gif.frame(width: 8, height: 8, index: index) }
        let cut = Data(gif.bytes.dropLast(20))
        let container = try Self.expectLenientRepairsWhatStrictRefuses(cut, size: PixelSize(width: 8, height: 8), "cut animation")
        #expect(container.frames.count == 3)
        #expect(container.repairs.contains(ImageContainer.Repair(.framesKept(kept: 3, of: nil))), "\(container.repairs)")
        #expect(container.repairs.map(\.description).contains("3 frames kept"))
    }

    /// A graphic control extension whose block size is wrong is skipped by its sub-block lengths.
    @Test func extensionWithAWrongBlockSizeIsSkipped() throws {
        var gif = GIFBuilder(width: 8, height: 8)
        gif.frame(width: 8, height: 8, index: 3)
        var bytes = gif.bytes
        let control = try #require(bytes.indices.first { bytes[$0] == 0x21 && bytes[$0 + 1] == 0xF9 })
        bytes[control + 2] = 3  // 3 data bytes claimed, 4 present: the fourth reads as a terminator
        let container = try ImageDecoder.decode(Data(bytes + [0x3B]))
        #expect(container.pixelSize == PixelSize(width: 8, height: 8))
        #expect(try container.bitmap()[0, 0] == RGBA(0, 0, 255, 255))
    }

    /// Broken encoders write an LZW minimum code size of 0; browsers decode such frames.
    @Test func lzwCodeSizeZeroDecodes() throws {
        var gif = GIFBuilder(width: 4, height: 4)
        gif.append([0x2C, 0, 0, 0, 0, 4, 0, 4, 0, 0])
        gif.append([0, 2, 0b0000_0000, 0b0000_0000, 0])  // code size 0, then 16 bits of 1-bit codes
        let container = try Self.expectLenientRepairsWhatStrictRefuses(gif.data, size: PixelSize(width: 4, height: 4), "code size 0")
        #expect(container.frameCount == 1)
    }

    /// A first frame reaching past the logical screen grows the canvas, as Chromium sizes it;
    /// strict keeps the declared screen and clips the frame.
    @Test func firstFrameLargerThanTheCanvasGrowsIt() throws {
        var gif = GIFBuilder(width: 8, height: 8)
        gif.frame(x: 4, y: 4, width: 16, height: 16, index: 2)
        let lenient = try ImageDecoder.decode(gif.data)
        #expect(lenient.pixelSize == PixelSize(width: 20, height: 20))
        #expect(try lenient.bitmap()[19, 19] == RGBA(0, 255, 0, 255))
        #expect(try lenient.bitmap()[0, 0].a == 0)
        let strict = try ImageDecoder.decode(gif.data, policy: .strict)
        #expect(strict.pixelSize == PixelSize(width: 8, height: 8))
        #expect(try strict.bitmap()[7, 7] == RGBA(0, 255, 0, 255))
        var source = try GIFFrameSource(data: gif.data)
        #expect(try source.nextFrame().bitmap().width == 20)
    }

    /// The streaming frame source follows the same policy.
    @Test func frameSourceKeepsTheCompleteFramesOfACutAnimation() throws {
        var gif = GIFBuilder(width: 8, height: 8)
        for index in [1, 2, 3] as [UInt8] { gif.frame(width: 8, height: 8, index: index) }
        let cut = Data(gif.bytes.dropLast(10))
        var source = try GIFFrameSource(data: cut)
        #expect(source.frameCount == 2)
        _ = try source.nextFrame()
        #expect(try source.nextFrame().bitmap()[0, 0] == RGBA(0, 255, 0, 255))
        #expect(throws: ImagePipeline.Error.self) { try GIFFrameSource(data: cut, policy: .strict) }
    }

    // MARK: The report

    @Test(arguments: [
        (ImageContainer.Repair.Kind.missingRows(412..<768), "rows 412–767 missing"),
        (.missingRows(9..<10), "row 9 missing"),
        (.framesKept(kept: 3, of: 8), "3 frames of 8 kept"),
        (.framesKept(kept: 1, of: nil), "1 frame kept"),
        (.missingPixels(frame: 0, count: 1), "frame 1: 1 pixel missing"),
        (.ignoredChecksum, "checksum mismatch ignored"),
        (.corruptData("bad Huffman code"), "corrupt data: bad Huffman code"),
    ])
    func repairsDescribeThemselvesInOneLine(_ kind: ImageContainer.Repair.Kind, _ text: String) {
        #expect(ImageContainer.Repair(kind).description == text)
    }
}

extension GIFBuilder {
    /// Appends an image descriptor (no graphic control) whose data holds exactly `indices`,
    /// however many pixels the descriptor declares.
    mutating func image(width: Int, height: Int, indices: [UInt8], interlaced: Bool = false) {
        append([0x2C] + Self.le16(0) + Self.le16(0) + Self.le16(width) + Self.le16(height) + [interlaced ? 0x40 : 0])
        append([2] + Self.subBlocks(Self.lzw(indices)))
    }
}

/// Finds markers in a JPEG's bytes, for tests that damage one on purpose.
enum JPEGMarkers {
    /// Offsets of every `FF code` marker, skipping the bytes of marker segments and entropy data.
    static func offsets(of code: UInt8, in bytes: [UInt8]) -> [Int] {
        (0..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == code }
    }

    /// The entropy-coded bytes of the first scan: after its SOS segment, up to the next marker.
    static func scanData(in bytes: [UInt8]) -> Range<Int>? {
        guard let sos = offsets(of: 0xDA, in: bytes).first else { return nil }
        let start = sos + 2 + (Int(bytes[sos + 2]) << 8 | Int(bytes[sos + 3]))
        var end = start
        while end + 1 < bytes.count, !(bytes[end] == 0xFF && bytes[end + 1] != 0 && !(0xD0...0xD7).contains(bytes[end + 1])) {
            end += 1
        }
        return start..<end
    }
}
