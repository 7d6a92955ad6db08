import Foundation
import Testing

@testable import Imago

/// ``JPEGScanSelector`` on hand-built marker sequences: which scans a 1/8 decode keeps, and the
/// whole decode for everything unusual. The entropy-coded bytes are arbitrary (the selector never
/// decodes them) but hold a stuffed `FF 00`.
@Suite struct JPEGScanSelectorTests {
    /// A progressive JPEG's markers: a frame of `components` (identifier, sampling factors), the
    /// given scans (components, Ss, Se, Ah, Al), each followed by `entropy`, and an end of image.
    struct Builder {
        var frameMarker: UInt8 = 0xC2
        var precision: UInt8 = 8
        var width = 4032
        var height = 3024
        var components: [(id: UInt8, sampling: UInt8)] = [(1, 0x22), (2, 0x11), (3, 0x11)]
        var scans: [(ids: [UInt8], ss: UInt8, se: UInt8, ah: UInt8, al: UInt8)] = []
        var entropy: [UInt8] = [0x12, 0x34, 0xFF, 0x00, 0x56]
        var extraSegments: [UInt8] = []
        var ends = true

        /// libjpeg's standard script for three components (jcparam.c, `jpeg_simple_progression`).
        static func standard() -> Builder {
            var builder = Builder()
            builder.scans = [
                ([1, 2, 3], 0, 0, 0, 1), ([1], 1, 5, 0, 2), ([3], 1, 63, 0, 1), ([2], 1, 63, 0, 1),
                ([1], 6, 63, 0, 2), ([1], 1, 63, 2, 1), ([1, 2, 3], 0, 0, 1, 0), ([3], 1, 63, 1, 0),
                ([2], 1, 63, 1, 0), ([1], 1, 63, 1, 0),
            ]
            return builder
        }

        static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            let length = body.count + 2
            return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        }

        var bytes: [UInt8] {
            var out: [UInt8] = [0xFF, 0xD8]
            out += Self.segment(0xDB, [0] + Array(repeating: 1, count: 64))
            var frame: [UInt8] = [precision, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)]
            frame.append(UInt8(components.count))
            for component in components { frame += [component.id, component.sampling, 0] }
            out += Self.segment(frameMarker, frame)
            out += extraSegments
            for scan in scans {
                var body: [UInt8] = [UInt8(scan.ids.count)]
                for id in scan.ids { body += [id, 0] }
                body += [scan.ss, scan.se, scan.ah << 4 | scan.al]
                out += Self.segment(0xC4, [0x00] + Array(repeating: 0, count: 16))  // a table before each scan
                out += Self.segment(0xDA, body) + entropy
            }
            if ends { out += [0xFF, 0xD9] }
            return out
        }

        var data: Data { Data(bytes) }
    }

    static func select(_ builder: Builder, scale: Int = 1, maximumScans: Int = 1_000) -> JPEGScanSelector.Selection {
        JPEGScanSelector.select(builder.data, maximumScans: maximumScans) { _, _ in scale }
    }

    static func fallback(_ builder: Builder, scale: Int = 1, maximumScans: Int = 1_000) -> JPEGScanSelector.Fallback? {
        if case .whole(let fallback) = select(builder, scale: scale, maximumScans: maximumScans) { return fallback }
        return nil
    }

    /// 4:2:0: the DC scans and the chroma scans (six of ten), the file without the four luma AC
    /// scans, their tables kept.
    @Test func standardScriptAt420KeepsDCAndChroma() throws {
        let builder = Builder.standard()
        guard case .scans(let data, let kept, let total) = Self.select(builder) else {
            Issue.record("no selection")
            return
        }
        #expect(kept == 6 && total == 10)
        let scans = JPEGScanCounter.scanCount(of: data, stoppingAfter: 100)
        #expect(scans == 6)
        let tables = data.indices.dropLast().filter { data[$0] == 0xFF && data[$0 + 1] == 0xC4 }.count
        #expect(tables == 10)
        #expect(data.suffix(2) == Data([0xFF, 0xD9]))
    }

    /// 4:4:4 and greyscale: every component at 1x1, so only the two DC scans.
    @Test func fullResolutionChromaKeepsOnlyDC() {
        var builder = Builder.standard()
        builder.components = [(1, 0x11), (2, 0x11), (3, 0x11)]
        guard case .scans(_, let kept, _) = Self.select(builder) else {
            Issue.record("no selection")
            return
        }
        #expect(kept == 2)
        var gray = Builder()
        gray.components = [(1, 0x11)]
        gray.scans = [([1], 0, 0, 0, 1), ([1], 1, 5, 0, 2), ([1], 6, 63, 0, 2), ([1], 1, 63, 2, 1), ([1], 0, 0, 1, 0), ([1], 1, 63, 1, 0)]
        guard case .scans(_, let grayKept, let grayTotal) = Self.select(gray) else {
            Issue.record("no selection")
            return
        }
        #expect(grayKept == 2 && grayTotal == 6)
    }

    /// libjpeg-turbo's choice of inverse DCT at 1/8 (jdmaster.c).
    @Test func inverseDCTSizes() {
        #expect(JPEGScanScript.inverseDCTSize(horizontal: 2, vertical: 2, maximumHorizontal: 2, maximumVertical: 2) == 1)
        #expect(JPEGScanScript.inverseDCTSize(horizontal: 1, vertical: 1, maximumHorizontal: 2, maximumVertical: 2) == 2)
        #expect(JPEGScanScript.inverseDCTSize(horizontal: 1, vertical: 1, maximumHorizontal: 2, maximumVertical: 1) == 1)
        #expect(JPEGScanScript.inverseDCTSize(horizontal: 1, vertical: 1, maximumHorizontal: 4, maximumVertical: 4) == 4)
        #expect(JPEGScanScript.inverseDCTSize(horizontal: 1, vertical: 1, maximumHorizontal: 3, maximumVertical: 3) == 1)
    }

    /// Restart markers inside the entropy-coded data are part of the scan.
    @Test func restartMarkersStayInsideTheirScan() {
        var builder = Builder.standard()
        builder.extraSegments = Builder.segment(0xDD, [0, 1])
        builder.entropy = [0x12, 0xFF, 0xD0, 0x34, 0xFF, 0xD1, 0xFF, 0x00, 0x56, 0xFF, 0xD2, 0x78]
        guard case .scans(_, let kept, let total) = Self.select(builder) else {
            Issue.record("no selection")
            return
        }
        #expect(kept == 6 && total == 10)
    }

    @Test func otherScalesAndSequentialFramesAreLeftWhole() {
        #expect(Self.fallback(Builder.standard(), scale: 2) == .scale)
        var baseline = Builder.standard()
        baseline.frameMarker = 0xC0
        #expect(Self.fallback(baseline) == .sequential)
    }

    @Test(arguments: [0xC3, 0xC6, 0xCA, 0xCE, 0xC9] as [UInt8])
    func unusualFramesAreLeftWhole(_ marker: UInt8) {
        var builder = Builder.standard()
        builder.frameMarker = marker
        #expect(Self.fallback(builder) == .unusualFrame)
    }

    @Test func twelveBitsArithmeticTablesAndDNLAreLeftWhole() {
        var twelve = Builder.standard()
        twelve.precision = 12
        #expect(Self.fallback(twelve) == .unusualFrame)
        var dac = Builder.standard()
        dac.extraSegments = Builder.segment(0xCC, [0x00, 0x10])
        #expect(Self.fallback(dac) == .unusualFrame)
        var noHeight = Builder.standard()  // a height given later by a DNL marker
        noHeight.height = 0
        #expect(Self.fallback(noHeight) == .unusualFrame)
        var dnl = Builder.standard()
        dnl.entropy = [0x12, 0x34] + Builder.segment(0xDC, [0x0B, 0xD0])
        #expect(Self.fallback(dnl) == .unusualFrame)
    }

    @Test func truncatedOrUnendedFilesAreLeftWhole() {
        var unended = Builder.standard()
        unended.ends = false
        #expect(Self.fallback(unended) == .truncated)
        let bytes = Builder.standard().bytes
        for cut in [3, 20, bytes.count / 2, bytes.count - 1] {
            let fallback: JPEGScanSelector.Fallback? =
                if case .whole(let reason) = JPEGScanSelector.select(Data(bytes.prefix(cut)), maximumScans: 100, scaleNumerator: { _, _ in 1 }) {
                    reason
                } else { nil }
            #expect(fallback == .truncated, "cut at \(cut)")
        }
        #expect(JPEGScanSelector.select(Data([0xFF, 0xD9]), maximumScans: 10) { _, _ in 1 } == .whole(.malformed))
    }

    @Test func moreScansThanTheLimitAreLeftToLibjpeg() {
        #expect(Self.fallback(Builder.standard(), maximumScans: 9) == .scanLimit)
        #expect(Self.fallback(Builder.standard(), maximumScans: 10) == nil)
    }

    /// Scripts libjpeg would refuse, warn about or smooth: the whole decode.
    @Test(arguments: [
        "dc and ac mixed", "ac of two components", "ac before dc", "coefficient twice", "refinement out of order",
        "refinement of two bits", "never refined", "unknown component", "end before start",
    ])
    func unusualScriptsAreLeftWhole(_ variant: String) {
        var builder = Builder.standard()
        switch variant {
        case "dc and ac mixed": builder.scans[0] = ([1, 2, 3], 0, 5, 0, 1)
        case "ac of two components": builder.scans[2] = ([2, 3], 1, 63, 0, 1)
        case "ac before dc": builder.scans.swapAt(0, 1)
        case "coefficient twice": builder.scans.insert(([2], 1, 63, 0, 1), at: 4)
        case "refinement out of order": builder.scans.swapAt(5, 9)
        case "refinement of two bits": builder.scans[5] = ([1], 1, 63, 2, 0)
        case "never refined": builder.scans.removeLast()
        case "unknown component": builder.scans[2] = ([9], 1, 63, 0, 1)
        default: builder.scans[2] = ([3], 9, 8, 0, 1)
        }
        #expect(Self.fallback(builder) == .unusualScans)
    }

    /// A script that never completes a coefficient would make libjpeg smooth the whole file's
    /// blocks at 1/8: the whole decode. Completed in any order of clean scans, it is selected.
    @Test func incompleteScriptsAreLeftWhole() {
        var builder = Builder()
        builder.scans = [([1, 2, 3], 0, 0, 0, 0), ([2], 1, 63, 0, 0), ([3], 1, 63, 0, 0), ([1], 1, 63, 0, 0)]
        #expect(Self.fallback(builder) == nil)
        builder.scans.removeLast()
        #expect(Self.fallback(builder) == .unusualScans)
        var dcOnly = Builder()
        dcOnly.components = [(1, 0x11)]
        dcOnly.scans = [([1], 0, 0, 0, 0)]
        #expect(Self.fallback(dcOnly) == .unusualScans)
    }

    @Test func junkBetweenSegmentsIsLeftWhole() {
        var builder = Builder.standard()
        builder.extraSegments = [0x00, 0x01]
        #expect(Self.fallback(builder) == .malformed)
    }
}
