import Foundation
import Imago
import ImagoTestSupport

/// A 256-pixel thumbnail of a 12-megapixel progressive JPEG: decoded at 1/8 from only the scans
/// that decode reads (the DC scans and the chroma scans of 4:2:0; `JPEGScanSelector`), against the
/// whole file decoded at 1/8, in the same run (issue 43: at most 0.3x). Both then shrink to 256
/// pixels with the pipeline's thumbnail processor. CPU time of the calling thread, median.
///
/// The photographs: `PreviewBenchmark.photographLike` (the repository's photo at 4032x3024 with
/// sensor-like noise, Imago's progressive encoder: five spectral-selection scans), and, when
/// `/usr/bin/cjpeg` exists, the same pixels through `cjpeg -progressive -quality 90`
/// (libjpeg's standard script: ten scans, with successive-approximation refinements).
enum ProgressiveThumbnailBenchmark {
    static let target = 256

    static func run(_ context: BenchmarkContext) throws -> [Figure] {
        #if os(Linux)
        guard let source = try? Data(contentsOf: PreviewBenchmark.photo) else {
            throw BenchmarkSkip(message: "progressive thumbnails: no photograph at \(PreviewBenchmark.photo.path)")
        }
        let (width, height) = context.quick ? (800, 600) : (4032, 3024)
        let imago = try PreviewBenchmark.photographLike(source, width: width, height: height)
        var files: [(name: String, data: Data)] = [("Imago's encoder, 5 scans", imago)]
        if let cjpeg = try cjpegVersion(of: imago, directory: context.directory) {
            files.append(("cjpeg -progressive, 10 scans", cjpeg))
        }
        let processor = ThumbnailProcessor(maximumPixelSize: target)
        var figures: [Figure] = []
        for file in files {
            let selected = { () throws -> Double in
                try threadCPUTime { _ = try processor.process(ImageDecoder.decode(file.data, maximumPixelSize: target)) } * 1000
            }
            let whole = { () throws -> Double in
                try threadCPUTime { _ = try processor.process(ImageDecoder.decodeWholeJPEG(file.data, maximumPixelSize: target)) } * 1000
            }
            // The same pixels both ways, or the figure means nothing.
            let a = try ImageDecoder.decode(file.data, maximumPixelSize: target).bitmap()
            let b = try ImageDecoder.decodeWholeJPEG(file.data, maximumPixelSize: target).bitmap()
            guard a == b else { throw BenchmarkSkip(message: "progressive thumbnails: the selected scans decode differently") }
            // The decodes alone, without the shrink to 256 that both share.
            let selectedDecode = { () throws -> Double in
                try threadCPUTime { _ = try ImageDecoder.decode(file.data, maximumPixelSize: target) } * 1000
            }
            let wholeDecode = { () throws -> Double in
                try threadCPUTime { _ = try ImageDecoder.decodeWholeJPEG(file.data, maximumPixelSize: target) } * 1000
            }
            _ = try [selected(), whole()]  // warm up
            let m = try Interleaved(repetitions: context.repetitions).run([selected, whole, selectedDecode, wholeDecode])
            let megapixels = String(format: "%.0f MP", Double(width * height) / 1e6)
            figures.append(
                Figure(
                    benchmark: "progressive-thumbnail",
                    name: "\(megapixels) progressive JPEG (\(file.name), \(file.data.count / 1024) KB) to \(target) px: CPU",
                    unit: "ms", higherIsBetter: false, ours: m[0], baselineName: "the whole file at 1/8, same run",
                    baseline: m[1],
                    extra: [("decode alone, ms", m[2]), ("the whole file's decode alone, ms", m[3]), ("decode ratio", m[2] / m[3])],
                    repetitions: context.repetitions))
        }
        return figures
        #else
        throw BenchmarkSkip(message: "progressive thumbnails: libjpeg-turbo's decoder is the Linux one")
        #endif
    }

    /// `jpeg`'s pixels re-encoded by `cjpeg -progressive -quality 90` (libjpeg's standard script);
    /// nil without cjpeg.
    static func cjpegVersion(of jpeg: Data, directory: URL) throws -> Data? {
        let cjpeg = "/usr/bin/cjpeg"
        guard FileManager.default.isExecutableFile(atPath: cjpeg) else { return nil }
        let bitmap = try ImageDecoder.decode(jpeg).bitmap()
        var ppm = Data("P6\n\(bitmap.width) \(bitmap.height)\n255\n".utf8)
        ppm.reserveCapacity(ppm.count + bitmap.width * bitmap.height * 3)
        for index in stride(from: 0, to: bitmap.pixels.count, by: 4) {
            ppm.append(contentsOf: bitmap.pixels[index..<(index + 3)])
        }
        let input = directory.appendingPathComponent("progressive-source.ppm")
        let output = directory.appendingPathComponent("progressive-cjpeg.jpg")
        try ppm.write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cjpeg)
        process.arguments = ["-progressive", "-quality", "90", "-outfile", output.path, input.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return try Data(contentsOf: output)
    }
}
