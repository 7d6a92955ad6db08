import Foundation
import Testing

@testable import Imago

/// The marker walk that enforces `maximumProgressiveScans` where ImageIO decodes (Apple), checked
/// here against libjpeg-turbo's own count on the same files.
@Suite struct JPEGScanCounterTests {
    /// A JPEG made of the fixture's segments up to its first scan, then `scans` copies of that
    /// scan (header and entropy-coded data), then EOI: a hostile file that is mostly scans.
    static func manyScans(_ scans: Int) throws -> Data {
        let data = [UInt8](try Fixture.named("jpeg-progressive").data())
        var sos: Int?
        var next: Int?
        var index = 2
        while index + 3 < data.count, next == nil {
            let marker = data[index + 1]
            let length = Int(data[index + 2]) << 8 | Int(data[index + 3])
            if marker == 0xDA {
                if sos == nil { sos = index } else { next = index }
                // Skip the entropy-coded data to the next real marker.
                index += 2 + length
                while index + 1 < data.count, !(data[index] == 0xFF && data[index + 1] != 0 && !(0xD0...0xD7).contains(data[index + 1])) {
                    index += 1
                }
            } else {
                index += 2 + length
            }
        }
        let start = try #require(sos)
        let end = try #require(next)
        var out = Array(data[..<start])
        for _ in 0..<scans { out += data[start..<end] }
        out += [0xFF, 0xD9]
        return Data(out)
    }

    @Test func baselineHasOneScan() throws {
        #expect(JPEGScanCounter.scanCount(of: try Fixture.named("jpeg-baseline").data(), stoppingAfter: 100) == 1)
    }

    @Test func progressiveFixtureHasSeveralScans() throws {
        let count = JPEGScanCounter.scanCount(of: try Fixture.named("jpeg-progressive").data(), stoppingAfter: 100)
        #expect(count > 3 && count < 20, "\(count)")
    }

    /// For every limit around the fixture's scan count, the counter refuses exactly when
    /// libjpeg-turbo does, so Apple and Linux refuse the same files.
    @Test func agreesWithLibjpeg() throws {
        let data = try Fixture.named("jpeg-progressive").data()
        let scans = JPEGScanCounter.scanCount(of: data, stoppingAfter: 1_000)
        for limit in 1...(scans + 2) {
            var limits = DecodingLimits()
            limits.maximumProgressiveScans = limit
            let counterRefuses = (try? JPEGScanCounter.check(data, limits: limits, url: nil)) == nil
            var libjpegRefuses = false
            do {
                _ = try ImageDecoder.decode(data, limits: limits)
            } catch {
                libjpegRefuses = error == .limitExceeded(nil, .progressiveScans(limit: limit))
            }
            #expect(counterRefuses == libjpegRefuses, "limit \(limit): counter \(counterRefuses), libjpeg \(libjpegRefuses)")
            #expect(counterRefuses == (scans > limit))
        }
    }

    @Test func stopsCountingPastTheLimit() throws {
        let hostile = try Self.manyScans(5_000)
        #expect(JPEGScanCounter.scanCount(of: hostile, stoppingAfter: 10_000) == 5_000)
        #expect(JPEGScanCounter.scanCount(of: hostile, stoppingAfter: 100) == 101)
        #expect(throws: ImagePipeline.Error.limitExceeded(nil, .progressiveScans(limit: 100))) {
            try JPEGScanCounter.check(hostile, limits: DecodingLimits(), url: nil)
        }
    }

    /// Damaged or foreign bytes are counted as far as they go, never trapped on.
    @Test(arguments: [
        [], [0xFF], [0xFF, 0xD8], [0xFF, 0xD8, 0xFF], [0xFF, 0xD8, 0xFF, 0xDA], [0xFF, 0xD8, 0xFF, 0xDA, 0x00],
        [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x00], [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x01, 0xFF],
        [0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF], [0xFF, 0xD8, 0xFF, 0xDA, 0xFF, 0xFF, 0xFF, 0xFF],
        [0xFF, 0xD8, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xD9], [0x89, 0x50, 0x4E, 0x47],
    ] as [[UInt8]])
    func malformedInputIsSafe(_ bytes: [UInt8]) {
        let count = JPEGScanCounter.scanCount(of: Data(bytes), stoppingAfter: 100)
        #expect(count <= 1)
    }

    @Test func truncatedFilesCountWhatArrived() throws {
        let data = try Fixture.named("jpeg-progressive").data()
        let whole = JPEGScanCounter.scanCount(of: data, stoppingAfter: 1_000)
        for cut in stride(from: 0, to: data.count, by: max(data.count / 50, 1)) {
            let count = JPEGScanCounter.scanCount(of: data.prefix(cut), stoppingAfter: 1_000)
            #expect(count <= whole)
        }
        // A slice that does not start at index 0 is read from its own start.
        let sliced = (Data([0, 0]) + data).dropFirst(2)
        #expect(JPEGScanCounter.scanCount(of: sliced, stoppingAfter: 1_000) == whole)
    }
}
