#if os(Linux)
import Foundation
import Testing

@testable import Imago

/// A progressive JPEG decoded at 1/8 from only the scans that decode reads (``JPEGScanSelector``)
/// has the pixels of the whole file decoded at 1/8: maximum difference 0, on every progressive JPEG
/// of the fixtures and of the preview harness's corpus, from libjpeg-turbo's `cjpeg` (its standard
/// script at 4:2:0, 4:4:4, 4:2:2 and greyscale, with restart markers, and a script in mozjpeg's
/// manner), Pillow and libvips (Fixtures/progressive/README.md says how each was made).
@Suite struct JPEGScanSelectionTests {
    /// The files written by other encoders, in Fixtures/progressive.
    static let encoderFixtures = [
        "cjpeg-420", "cjpeg-444", "cjpeg-422", "cjpeg-gray", "cjpeg-restart", "cjpeg-script", "pillow", "pillow-odd-422",
        "vips",
    ]

    /// Every progressive JPEG among the fixtures (any folder) and the jpeg-preview harness's corpus.
    static func progressiveFiles() -> [URL] {
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")
        let folders = [
            Fixture.folder, fuzz.appendingPathComponent("jpeg-preview/corpus"), fuzz.appendingPathComponent("jpeg-scan-selection/corpus"),
        ]
        return folders.flatMap { folder -> [URL] in
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            return files.filter { file in
                guard let data = try? Data(contentsOf: file), ImageFormat.sniff(data) == .jpeg else { return false }
                var tracker = JPEGScanTracker()
                tracker.consume(data)
                return tracker.kind == .progressive
            }
        }.sorted { $0.path < $1.path }
    }

    /// The context of a decode at 1/8 of `data`.
    static func eighth(_ data: Data) throws -> DecodingContext {
        let header = try #require(ImageHeader.probe(data))
        return DecodingContext(format: .jpeg, maximumPixelSize: (max(header.width, header.height) + 7) / 8)
    }

    @Test func everyProgressiveFixtureDecodesToTheSamePixels() throws {
        let files = Self.progressiveFiles()
        #expect(files.count >= 20, "\(files.map(\.lastPathComponent))")
        var selected = 0
        for file in files {
            let data = try Data(contentsOf: file)
            let context = try Self.eighth(data)
            if case .scans = JPEGDecoder.eighthScaleSelection(data, context: context) { selected += 1 }
            let whole = Result { () throws(ImagePipeline.Error) in try JPEGDecoder(selectsScans: false).decode(data, context: context) }
            let scans = Result { () throws(ImagePipeline.Error) in try JPEGDecoder().decode(data, context: context) }
            switch (whole, scans) {
            case (.success(let whole), .success(let scans)):
                let difference = try Self.maximumDifference(try whole.bitmap(), try scans.bitmap())
                #expect(difference == 0, "\(file.lastPathComponent): max difference \(difference)")
                #expect(whole.repairs == scans.repairs, "\(file.lastPathComponent)")
            case (.failure(let whole), .failure(let scans)):
                #expect(whole == scans, "\(file.lastPathComponent)")
            default:
                Issue.record("\(file.lastPathComponent): \(whole) against \(scans)")
            }
        }
        #expect(selected >= Self.encoderFixtures.count, "files that took the path: \(selected)")
    }

    /// Each encoder's file takes the path, leaving out scans.
    @Test(arguments: encoderFixtures)
    func encoderFixtureSkipsScans(_ name: String) throws {
        let data = try Fixture.data("progressive/\(name).jpg")
        guard case .scans(let scans, let kept, let total) = JPEGDecoder.eighthScaleSelection(data, context: try Self.eighth(data)) else {
            Issue.record("\(name) was decoded whole")
            return
        }
        #expect(kept < total && scans.count < data.count)
        let whole = try JPEGDecoder(selectsScans: false).decode(data, context: try Self.eighth(data)).bitmap()
        let selected = try JPEGDecoder().decode(data, context: try Self.eighth(data)).bitmap()
        #expect(try Self.maximumDifference(whole, selected) == 0)
    }

    /// Skipping the scans matters only with block smoothing off: on (libjpeg's default), the
    /// missing luma AC coefficients are estimated and the pixels differ. The test can fail.
    @Test func blockSmoothingWouldChangeThePixels() throws {
        let data = try Fixture.data("progressive/pillow.jpg")
        let context = try Self.eighth(data)
        guard case .scans(let scans, _, _) = JPEGDecoder.eighthScaleSelection(data, context: context) else {
            Issue.record("no selection")
            return
        }
        let whole = try JPEGDecoder(selectsScans: false).decode(data, context: context).bitmap()
        let smoothed = try JPEGDecoder(selectsScans: false).decode(scans, context: context).bitmap()
        #expect(try Self.maximumDifference(whole, smoothed) > 0)
    }

    /// At 1/4 and larger the whole file is decoded, as before.
    @Test(arguments: [2, 4, 8])
    func largerScalesDecodeTheWholeFile(_ numerator: Int) throws {
        let data = try Fixture.data("progressive/cjpeg-420.jpg")
        let header = try #require(ImageHeader.probe(data))
        let context = DecodingContext(format: .jpeg, maximumPixelSize: (max(header.width, header.height) * numerator + 7) / 8)
        #expect(JPEGDecoder.eighthScaleSelection(data, context: context) == .whole(.scale))
        #expect(JPEGDecoder.eighthScaleSelection(data, context: DecodingContext(format: .jpeg)) == .whole(.scale))
        let image = try JPEGDecoder().decode(data, context: context).bitmap()
        #expect(image.width == (header.width * numerator + 7) / 8)
    }

    /// A file damaged in a scan the selection keeps decodes whole, with the whole file's repairs.
    @Test func damageInAKeptScanFallsBackToTheWholeFile() throws {
        var bytes = [UInt8](try Fixture.data("progressive/cjpeg-420.jpg"))
        // The first scan (the DC of every component) starts after the first SOS header.
        let sos = try #require(bytes.indices.dropLast().first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        for offset in 20..<60 { bytes[sos + offset] = 0xA5 }
        let data = Data(bytes)
        let context = try Self.eighth(data)
        let whole = try JPEGDecoder(selectsScans: false).decode(data, context: context)
        let scans = try JPEGDecoder().decode(data, context: context)
        #expect(try whole.bitmap() == scans.bitmap())
        #expect(whole.repairs == scans.repairs)
    }

    static func maximumDifference(_ a: Bitmap, _ b: Bitmap) throws -> Int {
        try #require(a.width == b.width && a.height == b.height && a.pixels.count == b.pixels.count)
        return zip(a.pixels, b.pixels).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }
}
#endif
