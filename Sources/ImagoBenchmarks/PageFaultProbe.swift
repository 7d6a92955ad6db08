import Foundation
import Imago
import ImagoTestSupport

/// `imago-bench --page-faults`: a diagnostic, not a benchmark. Decodes the 12 MP JPEG a few times
/// and reports the minor page faults each decode takes, beside the cost of merely touching a fresh
/// buffer of the same size, to show how much of a full decode is first-touch of the output memory.
enum PageFaultProbe {
    static func run() throws {
        let jpeg = try Fixtures.jpeg(width: CodecBenchmark.width, height: CodecBenchmark.height)
        let byteCount = CodecBenchmark.width * CodecBenchmark.height * Bitmap.bytesPerPixel
        func minorFaults() -> Int {
            let usage = resourceUsage(children: false)
            return usage.ru_minflt
        }
        for _ in 0..<5 {
            let beforeDecode = minorFaults()
            let decode = try time { blackHole(try ImageDecoder.decode(jpeg)) }
            let beforeTouch = minorFaults()
            let touch = time {
                let buffer = [UInt8](unsafeUninitializedCapacity: byteCount) { bytes, initialized in
                    for offset in stride(from: 0, to: byteCount, by: 4096) { bytes[offset] = 1 }
                    initialized = byteCount
                }
                blackHole(buffer)
            }
            let after = minorFaults()
            print(
                String(
                    format: "decode %.1f ms, %d minor faults; touching a fresh %d MB buffer: %.1f ms, %d minor faults",
                    decode * 1000, beforeTouch - beforeDecode, byteCount / 1_000_000, touch * 1000, after - beforeTouch))
        }
    }
}
