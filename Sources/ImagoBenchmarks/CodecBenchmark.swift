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
            let ours: () throws -> Double = {
                var size = PixelSize(width: 0, height: 0)
                let seconds = try time {
                    size = try ImageDecoder.decode(jpeg, targetPixelSize: targetSize).pixelSize
                }
                precondition(size.width > 0)
                return seconds * 1000
            }
            let scale = targetSize == nil ? [] : ["-scale", "1/8"]
            // djpeg's CPU time (user + system, from RUSAGE_CHILDREN) on the real file minus its CPU
            // time on a 1x1 file: the decode without process start-up. CPU time, because wall-clock
            // differences of two process launches proved too noisy on a loaded machine.
            let djpegRun: () throws -> Double = {
                let full = try childCPUTime { try run(djpeg!, scale + ["-outfile", "/dev/null", jpegPath.path]) }
                let startup = try childCPUTime { try run(djpeg!, scale + ["-outfile", "/dev/null", tinyPath.path]) }
                return (full - startup) * 1000
            }
            let pillow: () throws -> Double = {
                try python!.send("jpeg \(jpegPath.path) \(targetSize ?? 0)")[0] * 1000
            }
            var contenders = [ours]
            if withPillow { contenders.append(pillow) }
            if djpeg != nil { contenders.append(djpegRun) }
            _ = try contenders.map { try $0() }  // warm up
            let m = try Interleaved(repetitions: repetitions).run(contenders)
            let decoded = try ImageDecoder.decode(jpeg, targetPixelSize: targetSize).pixelSize
            let label = targetSize.map { "JPEG 12 MP decode, target \($0) (→ \(decoded))" } ?? "JPEG 12 MP full decode to RGBA"
            let pillowName = targetSize == nil ? "Pillow open+load (RGB)" : "Pillow draft((\(target),\(target)))+load"
            let djpegName = (["djpeg"] + scale).joined(separator: " ") + " (libjpeg-turbo 2.1.5, streams to /dev/null), CPU ms minus start-up"
            var figure = Figure(
                benchmark: "jpeg", name: label, unit: "ms", higherIsBetter: false, ours: m[0],
                baselineName: withPillow ? pillowName : djpegName,
                baseline: m.count > 1 ? m[1] : .nan, repetitions: repetitions)
            if djpeg != nil, withPillow { figure.extra = [(djpegName, m[2])] }
            figures.append(figure)
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
                    benchmark: "thumbnail", name: "ThumbnailProcessor 12 MP → 256 (Lanczos)", unit: "ms",
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

    /// CPU seconds (user + system) used by the child processes `body` runs and waits for.
    private static func childCPUTime(_ body: () throws -> Void) rethrows -> Double {
        func total() -> Double {
            let usage = resourceUsage(children: true)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let before = total()
        try body()
        return total() - before
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PythonWorker.WorkerError(message: "\(executable) exited with \(process.terminationStatus)")
        }
    }
}
