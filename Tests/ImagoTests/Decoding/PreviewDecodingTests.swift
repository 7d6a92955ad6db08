import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// Previews of a progressive JPEG from its first bytes: the scans complete so far, decoded at the
/// final size, each closer to the final image than the one before.
@Suite struct PreviewDecodingTests {
    /// A real progressive JPEG (the encoder's five spectral-selection scans) of a photograph-like
    /// picture, and the pixels of its full decode.
    static func progressive(width: Int = 320, height: Int = 240) throws -> Data {
        try JPEGEncoder(quality: 0.9, progressive: true).encode(Fixtures.picture(width: width, height: height, seed: 4))
    }

    /// The boundaries of each complete scan, read with the tracker one byte at a time.
    static func boundaries(of data: Data) -> [(scans: Int, boundary: Int)] {
        var tracker = JPEGScanTracker()
        var result: [(Int, Int)] = []
        for offset in data.indices {
            tracker.consume(data[offset...offset])
            if tracker.completedScans > (result.last?.0 ?? 0) { result.append((tracker.completedScans, tracker.boundary)) }
        }
        return result
    }

    @Test func theTrackerFindsEveryScanOfAProgressiveFile() throws {
        let data = try Self.progressive()
        let found = Self.boundaries(of: data)
        #expect(found.map(\.scans) == [1, 2, 3, 4, 5])
        #expect(found.last.map { $0.boundary == data.count - 2 } == true, "the last scan ends at the end-of-image marker")
        #expect(JPEGScanCounter.scanCount(of: data, stoppingAfter: 100) == 5)
        // In one piece, the same answers.
        var whole = JPEGScanTracker()
        whole.consume(data)
        #expect(whole.completedScans == 5 && whole.boundary == found.last?.boundary && whole.reachedEnd)
        #expect(whole.kind == .progressive)
    }

    @Test func aBaselineFileIsSequential() throws {
        var tracker = JPEGScanTracker()
        tracker.consume(try Fixtures.jpeg(width: 64, height: 48))
        #expect(tracker.kind == .sequential)
        #expect(tracker.completedScans == 1)
    }

    @Test func notAJPEGIsMalformed() {
        var tracker = JPEGScanTracker()
        tracker.consume(Data("<html>".utf8))
        #expect(tracker.isMalformed)
    }

    #if os(Linux)
    @Test func eachPreviewShowsItsScansAtTheFinalSizeAndComesCloser() throws {
        let data = try Self.progressive()
        let final = try ImageDecoder.decode(data).bitmap()
        var last = -Double.infinity
        for (scans, boundary) in Self.boundaries(of: data).dropLast() {
            let preview = try JPEGDecoder().preview(data.prefix(boundary), context: DecodingContext(format: .jpeg))
            #expect(preview.scans == scans)
            let pixels = try preview.container.bitmap()
            #expect(pixels.width == final.width && pixels.height == final.height)
            let psnr = ColorDifference.peakSignalToNoise(pixels, final)
            #expect(psnr > last, "scan \(scans): \(psnr) dB")
            last = psnr
        }
    }
    #endif
}

extension PreviewDecodingTests {
    @Test func theTrackerGivesTheSameAnswersHoweverTheBytesAreSplit() throws {
        let data = try Self.progressive(width: 96, height: 64)
        var whole = JPEGScanTracker()
        whole.consume(data)
        for split in stride(from: 0, through: data.count, by: 7) {
            var tracker = JPEGScanTracker()
            tracker.consume(data.prefix(split))
            tracker.consume(data.dropFirst(split))
            #expect(tracker == whole, "split at \(split)")
        }
    }

    @Test func aLibjpegProgressionWithRefinementScansIsTrackedToo() throws {
        // The fixture is libjpeg's standard progression (successive approximation included).
        let data = try Fixture.data("jpeg-progressive.jpg")
        var tracker = JPEGScanTracker()
        tracker.consume(data)
        #expect(tracker.kind == .progressive)
        #expect(tracker.completedScans == JPEGScanCounter.scanCount(of: data, stoppingAfter: 100))
        #expect(tracker.completedScans > 5)
        #if os(Linux)
        var closeness = -Double.infinity
        let final = try ImageDecoder.decode(data).bitmap()
        for (scans, boundary) in Self.boundaries(of: data).dropLast() {
            let preview = try JPEGDecoder().preview(data.prefix(boundary), context: DecodingContext(format: .jpeg))
            #expect(preview.scans == scans)
            let psnr = ColorDifference.peakSignalToNoise(try preview.container.bitmap(), final)
            #expect(psnr >= closeness, "scan \(scans)")
            closeness = psnr
        }
        #endif
    }
}

#if os(Linux)
extension PreviewDecodingTests {
    @Test func aThumbnailPreviewIsDecodedAtTheFinalScale() throws {
        let data = try Self.progressive()
        let context = DecodingContext(format: .jpeg, maximumPixelSize: 80)
        let final = try JPEGDecoder().decode(data, context: context)
        let boundary = try #require(Self.boundaries(of: data).first?.boundary)
        let preview = try JPEGDecoder().preview(data.prefix(boundary), context: context)
        #expect(preview.container.pixelSize == final.pixelSize)
        #expect(preview.container.pixelSize.width < 320)
    }

    @Test func aSingleScanFileHasNoPreview() throws {
        let data = try Fixtures.jpeg(width: 64, height: 48)
        #expect(throws: ImagePipeline.Error.self) {
            try JPEGDecoder().preview(data, context: DecodingContext(format: .jpeg))
        }
    }

    @Test func aCancelledTaskStopsThePreviewDecode() async throws {
        let data = try Self.progressive()
        let boundary = try #require(Self.boundaries(of: data).dropLast().last?.boundary)
        let url = URL(string: "https://example.com/p.jpg")!
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return Result { () throws(ImagePipeline.Error) in
                try JPEGDecoder().preview(data.prefix(boundary), context: DecodingContext(format: .jpeg, url: url))
            }
        }
        let result = await task.value
        #expect(throws: ImagePipeline.Error.cancelled(url)) { try result.get() }
    }
}
#endif
