import Foundation
import Imago
import ImagoTestSupport

/// Target 8: the peak resident memory of a process that loads 500 distinct 12 MP JPEGs (served by
/// the loopback server of this process) as 256-pixel thumbnails with the default configuration,
/// all requested at once, beside the same child's resident memory before it loads anything.
///
/// The loading runs in a fresh child process (`imago-bench --peak-memory-child`), because a
/// high-water mark never goes down: this process has held far larger things by then. The child
/// reads its own `VmHWM` from /proc/self/status and reports the pipeline's statistics.
enum PeakMemoryBenchmark {
    static let childFlag = "--peak-memory-child"

    static func run(_ context: BenchmarkContext) async throws -> [Figure] {
        let count = context.quick ? 12 : 500
        let (width, height) = context.quick ? (800, 600) : (4000, 3000)
        let target = 256
        context.note("making \(count) distinct \(width)x\(height) JPEGs")
        let images = Locked<[Int: Data]>([:])
        DispatchQueue.concurrentPerform(iterations: count) { seed in
            let data = try? Fixtures.jpeg(width: width, height: height, seed: seed)
            images.withLock { $0[seed] = data }
        }
        let made = images.withLock { $0 }
        guard made.count == count else { throw BenchmarkFailure(message: "could not make the JPEGs") }
        let server = try await TestServer.start()
        for (seed, data) in made {
            server.set("/peak/\(seed).jpg", data: data, contentType: "image/jpeg")
        }
        let meanBytes = made.values.reduce(0) { $0 + $1.count } / count
        let runs = context.quick ? 1 : 3
        var samples: [[Double]] = []
        for _ in 0..<runs {
            let before = server.totalRequestCount
            let result = try ThumbnailBenchmark.spawn(
                CommandLine.arguments[0], [childFlag, server.url(for: "/peak/").absoluteString, "\(count)", "\(target)"])
            let fields = result.output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
            guard fields.count == 6 else {
                throw BenchmarkFailure(message: "the peak-memory child printed \(result.output)")
            }
            guard server.totalRequestCount - before == count, Int(fields[5]) == count else {
                throw BenchmarkFailure(
                    message: "peak memory: \(server.totalRequestCount - before) downloads and \(Int(fields[5])) decodes for \(count) images")
            }
            samples.append(fields)
        }
        try await server.shutdown()
        func column(_ index: Int) -> Double { median(samples.map { $0[index] }) }
        return [
            Figure(
                benchmark: "peak-memory",
                name: "peak RSS (VmHWM), \(count) distinct \(width)x\(height) JPEGs (mean \(meanBytes / 1024) KB) → \(target) thumbnails, default configuration, all at once (target < 200 MB)",
                unit: "MB", higherIsBetter: false, ours: column(0) / 1024,
                baselineName: "the same child before loading (runtime, Foundation, pipeline)", baseline: column(1) / 1024,
                extra: [
                    ("statistics().memoryCost, MB", column(2) / 1_048_576), ("statistics().memoryCount", column(3)),
                    ("wall s", column(4)), ("decodes", column(5)), ("child runs", Double(runs)),
                ], repetitions: runs)
        ]
    }

    /// `imago-bench --peak-memory-child BASE-URL COUNT TARGET`: loads BASE-URL0.jpg…(COUNT-1).jpg
    /// as TARGET-pixel thumbnails through a default pipeline, all at once, and prints
    /// `peak-kB idle-kB memory-cost memory-count seconds decodes`.
    static func child(arguments: [String]) async throws {
        guard arguments.count == 3, let base = URL(string: arguments[0]), let count = Int(arguments[1]),
            let target = Int(arguments[2])
        else { throw BenchmarkFailure(message: "usage: \(childFlag) BASE-URL COUNT TARGET") }
        let decoder = CountingDecoder()
        var configuration = ImagePipeline.Configuration()
        configuration.decoders.register(decoder)
        let pipeline = ImagePipeline(configuration: configuration)
        let idle = status("VmHWM")
        let seconds = try await time {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    let request = ImageRequest(url: base.appendingPathComponent("\(index).jpg"), maximumPixelSize: target)
                    group.addTask {
                        let response = try await pipeline.image(for: request)
                        precondition(max(response.container.pixelSize.width, response.container.pixelSize.height) == target)
                    }
                }
                try await group.waitForAll()
            }
        }
        let statistics = pipeline.statistics()
        print(status("VmHWM"), idle, statistics.memoryCost, statistics.memoryCount, seconds, decoder.count)
    }

    /// A `kB` field of /proc/self/status.
    static func status(_ field: String) -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix(field + ":") }
            .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
    }
}
