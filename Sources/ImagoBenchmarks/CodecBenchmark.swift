import Foundation
import Imago
import ImagoTestSupport

/// Benchmarks 3 and 4: decoding a 12-megapixel JPEG (full size and for a 256-pixel target) and
/// shrinking a 12-megapixel bitmap to 256 pixels with Lanczos.
enum CodecBenchmark {
    static let width = 4000
    static let height = 3000
    static let target = 256

    /// Baselines for decoding: libjpeg-turbo's own `djpeg` (the same libjpeg-turbo we link, run as
    /// a process; start-up measured on a 1x1 JPEG and subtracted) and Pillow timed inside python.
    static func decode(_ context: BenchmarkContext) throws -> [Figure] {
        let (repetitions, directory, python) = (context.repetitions, context.directory, context.python)
        let (width, height) = context.quick ? (400, 300) : (Self.width, Self.height)
        let jpeg = try Fixtures.jpeg(width: width, height: height)
        let tiny = try Fixtures.jpeg(width: 1, height: 1)
        let jpegPath = directory.appendingPathComponent("12mp.jpg")
        let tinyPath = directory.appendingPathComponent("1x1.jpg")
        try jpeg.write(to: jpegPath)
        try tiny.write(to: tinyPath)
        let djpeg = ["/usr/bin/djpeg", "/usr/local/bin/djpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let withPillow = python?.hasPillow ?? false

        var figures: [Figure] = []
        for targetSize in [nil, target] as [Int?] {
            // Ours: the decode's CPU time on this thread (like djpeg's and Pillow's below, so
            // that a loaded machine's preemption counts for none of them), its wall time and its
            // minor page faults. The image is released after the clocks stop: freeing it is not
            // decoding (Pillow's timing stops at load() with the image alive, too).
            var wallSamples: [Double] = []
            var faultSamples: [Double] = []
            let ours: () throws -> Double = {
                var image: ImageContainer?
                let faults = resourceUsage(children: false).ru_minflt
                let wall = ContinuousClock.now
                let cpu = try threadCPUTime { image = try ImageDecoder.decode(jpeg, maximumPixelSize: targetSize) }
                wallSamples.append((ContinuousClock.now - wall).seconds * 1000)
                faultSamples.append(Double(resourceUsage(children: false).ru_minflt - faults))
                precondition((image?.pixelSize.width ?? 0) > 0)
                return cpu * 1000
            }
            let scale = targetSize == nil ? [] : ["-scale", "1/8"]
            // djpeg's CPU time (user + system, from RUSAGE_CHILDREN) on the real file minus its CPU
            // time on a 1x1 file: the decode without process start-up. CPU time, because wall-clock
            // differences of two process launches proved too noisy on a loaded machine.
            let djpegRun: () throws -> Double = {
                let full = try childrenCPUTime { try runTool(djpeg!, scale + ["-outfile", "/dev/null", jpegPath.path]) }
                let startup = try childrenCPUTime { try runTool(djpeg!, scale + ["-outfile", "/dev/null", tinyPath.path]) }
                return (full - startup) * 1000
            }
            // Pillow's CPU time (time.process_time) around open + load, inside the worker.
            let pillow: () throws -> Double = {
                let fields = try python!.send("jpeg \(jpegPath.path) \(targetSize ?? 0)")
                guard fields.count >= 4 else { throw PythonWorker.WorkerError(message: "the worker sent \(fields)") }
                return fields[3] * 1000
            }
            var contenders = [ours]
            if djpeg != nil { contenders.append(djpegRun) }
            if withPillow { contenders.append(pillow) }
            _ = try contenders.map { try $0() }  // warm up
            wallSamples.removeAll()
            faultSamples.removeAll()
            let m = try Interleaved(repetitions: repetitions).run(contenders)
            let decoded = try ImageDecoder.decode(jpeg, maximumPixelSize: targetSize).pixelSize
            let megapixels = width * height >= 1_000_000 ? String(format: "%.0f MP", Double(width * height) / 1e6) : "\(width)x\(height)"
            let label =
                targetSize.map { "JPEG \(megapixels) decode, target \($0) (→ \(decoded)): CPU" }
                ?? "JPEG \(megapixels) full decode to RGBA: CPU"
            let pillowName = targetSize == nil ? "Pillow open+load (RGB), CPU" : "Pillow draft((\(target),\(target)))+load, CPU"
            let djpegName = (["djpeg"] + scale).joined(separator: " ") + " (libjpeg-turbo 2.1.5, streams to /dev/null), CPU minus start-up"
            let pillowValue = withPillow ? m[m.count - 1] : Double.nan
            let djpegValue = djpeg != nil ? m[1] : Double.nan
            var extra: [(String, Double)] = [
                ("ours, wall ms", median(wallSamples)), ("ours, minor page faults per decode", median(faultSamples)),
            ]
            if djpeg != nil { extra.append((pillowName + (withPillow ? "" : ": Pillow unavailable"), pillowValue)) }
            if djpeg != nil, withPillow { extra.append(("ratio to Pillow", m[0] / pillowValue)) }
            figures.append(
                Figure(
                    benchmark: "jpeg", name: label, unit: "ms", higherIsBetter: false, ours: m[0],
                    baselineName: djpeg != nil ? djpegName : pillowName, baseline: djpeg != nil ? djpegValue : pillowValue,
                    extra: extra, repetitions: repetitions))
        }
        return figures
    }

    /// Lanczos thumbnail of the same 12-megapixel RGBA pixels, ours against Pillow's `resize(LANCZOS)`.
    static func thumbnail(_ context: BenchmarkContext) throws -> [Figure] {
        let (repetitions, directory, python) = (context.repetitions, context.directory, context.python)
        let (width, height) = context.quick ? (400, 300) : (Self.width, Self.height)
        let bitmap = Fixtures.picture(width: width, height: height)
        let processor = ThumbnailProcessor(maximumPixelSize: target)
        let ours: () throws -> Double = {
            var out = Bitmap(width: 1, height: 1)
            let seconds = try time { out = try processor.process(bitmap) }
            precondition(out.width == target)
            return seconds * 1000
        }
        guard let python, python.hasPillow else {
            let m = try Interleaved(repetitions: repetitions).run([ours])
            return [
                Figure(
                    benchmark: "thumbnail", name: "ThumbnailProcessor \(width)x\(height) RGBA → \(target) (Lanczos-3)", unit: "ms",
                    higherIsBetter: false, ours: m[0], baselineName: "Pillow unavailable", baseline: .nan,
                    repetitions: repetitions)
            ]
        }
        let rawPath = directory.appendingPathComponent("12mp.rgba")
        try Data(bitmap.pixels).write(to: rawPath)
        let pillow: () throws -> Double = {
            try python.send("resize \(rawPath.path) \(width) \(height) \(target)")[0] * 1000
        }
        _ = try ours()
        _ = try pillow()
        let m = try Interleaved(repetitions: repetitions).run([ours, pillow])
        let size = processor.outputSize(for: PixelSize(width: width, height: height))
        return [
            Figure(
                benchmark: "thumbnail", name: "ThumbnailProcessor 12 MP RGBA → \(size) (Lanczos-3)", unit: "ms",
                higherIsBetter: false, ours: m[0], baselineName: "Pillow resize(LANCZOS), same RGBA pixels",
                baseline: m[1], repetitions: repetitions)
        ]
    }
}
