import Foundation
import Imago
import ImagoTestSupport

/// `imago-bench --overhead-probe PASSES [WAY…]`: a diagnostic, not a figure. What one request
/// costs in CPU, each way of making it run alone in passes of 200 requests, the ways interleaved,
/// so that `perf record` can profile one way at a time and the CPU of two ways can be compared.
///
/// Ways (all, when none is named):
/// - `loader`: the platform loader over loopback, 8 workers looping over their URLs (the network
///   group's baseline);
/// - `loader-all`: the same loader, every request of a pass in its own task at once (its pool
///   queues what its 8 connections cannot take): what that load shape costs without the pipeline;
/// - `pipeline`: `data(for:)` over loopback, every request of a pass in its own task at once, the
///   scheduler running 8 (the network group's figure);
/// - `pipeline-workers`: `data(for:)` over loopback called by 8 workers, as the loader is;
/// - `memory-pipeline`, `memory-pipeline-workers`: the same two with a loader that answers from
///   memory without suspending, which leaves what the pipeline itself costs: the shared work, its
///   task, the scheduler, the bookkeeping;
/// - `memory-starter-workers`: `memory-pipeline-workers` with a loader whose downloads are bound
///   to no task (``DownloadStarting``, as the platform loader's are), so the work runs in the
///   caller's task as it does over loopback: the pipeline's own CPU on the network path.
///
/// Every way after the first is also given as the median of its pass-by-pass differences from
/// the first: passes of the two run moments apart, so the machine's drift cancels out of each.
enum OverheadProbe {
    static let flag = "--overhead-probe"

    enum Way: String, CaseIterable {
        case loader
        case loaderAll = "loader-all"
        case pipeline
        case pipelineWorkers = "pipeline-workers"
        case memoryPipeline = "memory-pipeline"
        case memoryPipelineWorkers = "memory-pipeline-workers"
        case memoryStarterWorkers = "memory-starter-workers"
    }

    /// The ways' names, as the command line takes them.
    static var wayNames: String { Way.allCases.map(\.rawValue).joined(separator: "|") }
    private static let requestsPerPass = 200
    private static let concurrency = 8

    static func run(arguments: [String]) async throws {
        guard let passes = arguments.first.flatMap({ Int($0) }), passes > 0 else {
            throw CountsError("\(flag) PASSES [\(wayNames)…]")
        }
        var chosen = Way.allCases
        if arguments.count > 1 {
            chosen = try arguments.dropFirst().map { name in
                guard let way = Way(rawValue: name) else { throw CountsError("unknown way \(name); the ways are \(wayNames)") }
                return way
            }
        }
        let server = try await TestServer.start()
        for index in 0..<requestsPerPass {
            server.set("/images/\(index).jpg", data: try Fixtures.jpeg(width: 1135, height: 851, seed: index), contentType: "image/jpeg")
        }
        let urls = (0..<requestsPerPass).map { server.url(for: "/images/\($0).jpg") }
        let loader = PlatformDataLoader(configuration: DataLoader.Configuration(maximumConnections: concurrency))
        let pipelineLoader = PlatformDataLoader(configuration: DataLoader.Configuration(maximumConnections: concurrency))
        func pipeline(_ loader: any DataLoading) -> ImagePipeline {
            ImagePipeline(
                configuration: .init(
                    dataLoader: loader, memoryCache: nil, diskCache: nil, maximumConcurrentDownloads: concurrency,
                    connectivity: .alwaysReachable))
        }
        let network = pipeline(pipelineLoader)
        let memory = pipeline(MemoryLoader())
        let memoryStarter = pipeline(MemoryStarter())

        var samples: [Way: [Double]] = [:]
        for pass in 0...passes {  // pass 0 warms up
            for way in chosen {
                let before = processCPUSeconds()
                switch way {
                case .loader:
                    try await workers(urls) { url in _ = try await loader.loadData(for: DataLoader.Request(url: url), progress: { _ in }) }
                case .loaderAll:
                    try await allAtOnce(urls) { url in _ = try await loader.loadData(for: DataLoader.Request(url: url), progress: { _ in }) }
                case .pipeline: try await allAtOnce(urls) { url in _ = try await network.data(for: ImageRequest(url: url)) }
                case .pipelineWorkers: try await workers(urls) { url in _ = try await network.data(for: ImageRequest(url: url)) }
                case .memoryPipeline: try await allAtOnce(urls) { url in _ = try await memory.data(for: ImageRequest(url: url)) }
                case .memoryPipelineWorkers: try await workers(urls) { url in _ = try await memory.data(for: ImageRequest(url: url)) }
                case .memoryStarterWorkers:
                    try await workers(urls) { url in _ = try await memoryStarter.data(for: ImageRequest(url: url)) }
                }
                if pass > 0 { samples[way, default: []].append((processCPUSeconds() - before) / Double(urls.count) * 1e6) }
            }
        }
        for way in chosen {
            let sorted = samples[way, default: []].sorted()
            let median = String(format: "%.1f", sorted[sorted.count / 2])
            var line = "\(way.rawValue): median \(median) µs of CPU per request (whole process, \(passes) passes)"
            if let first = chosen.first, way != first {
                let differences = zip(samples[way, default: []], samples[first, default: []]).map { $0 - $1 }.sorted()
                let difference = String(format: "%+.1f", differences[differences.count / 2])
                line += "; \(difference) µs against \(first.rawValue) (median of the passes' differences)"
            }
            print(line)
        }
        try await loader.shutdown()
        try await pipelineLoader.shutdown()
        try await server.shutdown()
    }

    /// `concurrency` tasks, each making every `concurrency`-th request in turn.
    private static func workers(_ urls: [URL], _ request: @escaping @Sendable (URL) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask { for index in stride(from: worker, to: urls.count, by: concurrency) { try await request(urls[index]) } }
            }
            try await group.waitForAll()
        }
    }

    /// A task for every request, all started at once.
    private static func allAtOnce(_ urls: [URL], _ request: @escaping @Sendable (URL) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for url in urls { group.addTask { try await request(url) } }
            try await group.waitForAll()
        }
    }

    /// User and system CPU of the whole process (the loopback server included), in seconds.
    private static func processCPUSeconds() -> Double {
        let usage = resourceUsage(children: false)
        let seconds = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec
        let microseconds = usage.ru_utime.tv_usec + usage.ru_stime.tv_usec
        return Double(seconds) + Double(microseconds) / 1e6
    }

    /// ``MemoryLoader`` as a ``DownloadStarting`` loader: its downloads answer at once, bound to no task.
    private struct MemoryStarter: DownloadStarting {
        final class Download: StartedDownload {
            func response(cancelling: Bool) async throws(ImagePipeline.Error) -> DataLoader.Response { MemoryLoader.response }
            func cancel() {}
        }

        func startDownload(
            for request: DataLoader.Request, observer: DownloadObserver
        ) async throws(ImagePipeline.Error) -> any StartedDownload {
            Download()
        }

        func loadData(
            for request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
        ) async throws(ImagePipeline.Error) -> DataLoader.Response {
            MemoryLoader.response
        }
    }

    /// Answers every request with the same 50 KB at once, without suspending.
    private struct MemoryLoader: DataLoading {
        static let response = DataLoader.Response(
            data: Data(repeating: 0xA5, count: 50 * 1024), statusCode: 200, headers: ["content-type": "image/jpeg"])

        func loadData(
            for request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
        ) async throws(ImagePipeline.Error) -> DataLoader.Response {
            Self.response
        }
    }
}
