import Foundation
import Imago
import ImagoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

#if os(Linux)
/// The platform's default loader: the baseline and the pipeline's transport.
typealias PlatformDataLoader = HTTPClientDataLoader
#else
/// The platform's default loader: the baseline and the pipeline's transport.
typealias PlatformDataLoader = URLSessionDataLoader
#endif

/// Target 5: 200 distinct ~50 KB JPEGs from a `TestServer` on 127.0.0.1.
///
/// - `data(for:)` through `ImagePipeline` (no caches; every request of a pass handed over at once,
///   the scheduler runs `C` at a time over a loader with `C` connections) against bare
///   `PlatformDataLoader` GETs of the same URLs by `C` workers, at C = 8 and 32; beside it (not
///   the figure), `data(for:)` called by `C` workers as the bare loader is, and the bare loader
///   handed every request at once as `data(for:)` is, which tell what handing every request over
///   at once costs apart from what the pipeline costs.
/// - The same with a `DiskCache` (every request reloads and stores; the pass ends when the disk
///   writes have finished) against bare GETs each followed by a plain file write (open, write, close).
/// - `image(for:)` with decode at C = 8, beside the bare GETs (for scale; it decodes, they do not).
enum NetworkBenchmark {
    static func run(_ context: BenchmarkContext) async throws -> [Figure] {
        let imageCount = context.quick ? 16 : 200
        let passes = context.quick ? 1 : 5
        let targetBytes = context.quick ? 8 * 1024 : 50 * 1024
        let repetitions = context.repetitions

        // Pick dimensions whose JPEG is about the target size, then make distinct pictures of it.
        // (Bytes grow slower than area and vary with the seed: refine on the mean of eight pictures.)
        var width = 640
        var height = 480
        for _ in 0..<3 {
            let probes = try (0..<8).map { try Fixtures.jpeg(width: width, height: height, seed: $0).count }
            let scale = (Double(targetBytes) / (Double(probes.reduce(0, +)) / 8)).squareRoot()
            width = max(16, Int(Double(width) * scale))
            height = width * 3 / 4
        }
        let images = try (0..<imageCount).map { try Fixtures.jpeg(width: width, height: height, seed: $0) }
        let totalBytes = images.reduce(0) { $0 + $1.count }
        let meanBytes = totalBytes / imageCount

        let server = try await TestServer.start()
        for (index, image) in images.enumerated() {
            server.set("/images/\(index).jpg", data: image, contentType: "image/jpeg")
        }
        let urls = (0..<imageCount).map { server.url(for: "/images/\($0).jpg") }
        let total = imageCount * passes
        let label = "\(imageCount) JPEGs \(width)x\(height) (mean \(meanBytes / 1024) KB), \(passes) passes"
        let writeDirectory = context.directory.appendingPathComponent("network-writes")
        try FileManager.default.createDirectory(at: writeDirectory, withIntermediateDirectories: true)

        var figures: [Figure] = []
        var loaders: [PlatformDataLoader] = []
        for concurrency in [8, 32] {
            let raw = PlatformDataLoader(configuration: DataLoader.Configuration(maximumConnections: concurrency))
            let pipelineLoader = PlatformDataLoader(configuration: DataLoader.Configuration(maximumConnections: concurrency))
            loaders += [raw, pipelineLoader]
            let pipeline = ImagePipeline(
                configuration: .init(
                    dataLoader: pipelineLoader, memoryCache: nil, diskCache: nil,
                    maximumConcurrentDownloads: concurrency, connectivity: .alwaysReachable))

            /// `C` workers, each loading every C-th URL with `load` (which returns the body's size),
            /// pass after pass.
            func workers(_ load: @escaping @Sendable (Int) async throws -> Int) -> () async throws -> Double {
                {
                    let seconds = try await time {
                        for _ in 0..<passes {
                            try await withThrowingTaskGroup(of: Int.self) { group in
                                for worker in 0..<concurrency {
                                    group.addTask {
                                        var bytes = 0
                                        for index in stride(from: worker, to: imageCount, by: concurrency) {
                                            bytes += try await load(index)
                                        }
                                        return bytes
                                    }
                                }
                                let bytes = try await group.reduce(0, +)
                                precondition(bytes == totalBytes, "a pass lost bytes")
                            }
                        }
                    }
                    return Double(total) / seconds
                }
            }
            /// Bare GETs by `C` workers; `write` gets each body.
            func bare(write: (@Sendable (Int, Data) throws -> Void)?) -> () async throws -> Double {
                workers { index in
                    let data = try await raw.loadData(for: DataLoader.Request(url: urls[index]), progress: { _ in }).data
                    try write?(index, data)
                    return data.count
                }
            }
            let rawGets = bare(write: nil)
            // The pipeline called as the bare loader is: each worker waits for one request before
            // the next, so nothing waits in the scheduler and nothing is handed over at once.
            let pipelineByWorkers = workers { index in
                let original = try await pipeline.data(for: ImageRequest(url: urls[index]))
                precondition(original.source == .network)
                return original.data.count
            }
            // A plain file write of each body: what storing the bytes costs at the least.
            let rawGetsAndWrites = bare { index, data in
                try plainWrite(data, to: writeDirectory.appendingPathComponent("\(concurrency)-\(index).jpg").path)
            }
            /// Every request of a pass handed to `pipeline` at once; its scheduler runs C at a time.
            func through(_ pipeline: ImagePipeline, policy: ImageRequest.CachePolicy) -> () async throws -> Double {
                {
                    let seconds = try await time {
                        for _ in 0..<passes {
                            try await withThrowingTaskGroup(of: Int.self) { group in
                                for url in urls {
                                    group.addTask {
                                        var request = ImageRequest(url: url)
                                        request.cachePolicy = policy
                                        let original = try await pipeline.data(for: request)
                                        precondition(original.source == .network)
                                        return original.data.count
                                    }
                                }
                                let bytes = try await group.reduce(0, +)
                                precondition(bytes == totalBytes, "pipeline lost bytes")
                            }
                            await pipeline.waitForDiskWrites()
                        }
                    }
                    return Double(total) / seconds
                }
            }
            let pipelineData = through(pipeline, policy: .useCache)
            // The bare loader handed every request of a pass at once, as `data(for:)` is in the
            // figure (its connection pool queues what its C connections cannot take): what that
            // load shape costs without the pipeline.
            let rawAllAtOnce: () async throws -> Double = {
                let seconds = try await time {
                    for _ in 0..<passes {
                        try await withThrowingTaskGroup(of: Int.self) { group in
                            for url in urls {
                                group.addTask { try await raw.loadData(for: DataLoader.Request(url: url), progress: { _ in }).data.count }
                            }
                            let bytes = try await group.reduce(0, +)
                            precondition(bytes == totalBytes, "a pass lost bytes")
                        }
                    }
                }
                return Double(total) / seconds
            }

            var contenders = [pipelineData, rawGets]
            var diskPipeline: ImagePipeline?
            var diskCache: DiskCache?
            if concurrency == 8 {
                let cache = try DiskCache(directory: context.directory.appendingPathComponent("network-disk-cache"))
                let disk = ImagePipeline(
                    configuration: .init(
                        dataLoader: pipelineLoader, memoryCache: nil, diskCache: cache,
                        maximumConcurrentDownloads: concurrency, connectivity: .alwaysReachable))
                diskPipeline = disk
                diskCache = cache
                // Reload every time (no disk read), store what arrives.
                contenders += [through(disk, policy: .reloadIgnoringCache), rawGetsAndWrites]
                let images: () async throws -> Double = {
                    let seconds = try await time {
                        for _ in 0..<passes {
                            try await withThrowingTaskGroup(of: Int.self) { group in
                                for url in urls {
                                    group.addTask {
                                        let response = try await pipeline.image(for: ImageRequest(url: url))
                                        precondition(response.source == .network)
                                        return response.container.pixelSize.width
                                    }
                                }
                                _ = try await group.reduce(0, +)
                            }
                        }
                    }
                    return Double(total) / seconds
                }
                contenders.append(images)
            }
            contenders.append(pipelineByWorkers)
            let byWorkers = contenders.count - 1
            contenders.append(rawAllAtOnce)
            let bareAllAtOnce = contenders.count - 1
            for contender in contenders { _ = try await contender() }  // warm up connections and code
            let requestsBefore = server.totalRequestCount
            let m = try await Interleaved(repetitions: repetitions).run(contenders)
            let requestsMade = server.totalRequestCount - requestsBefore
            precondition(requestsMade == repetitions * total * contenders.count, "a request was coalesced or lost")
            withExtendedLifetime(diskPipeline) {}

            let bareName = "\(PlatformDataLoader.self), \(concurrency) workers"
            figures.append(
                Figure(
                    benchmark: "network", name: "ImagePipeline.data(for:), concurrency \(concurrency), \(label)",
                    unit: "req/s", higherIsBetter: true, ours: m[0], baselineName: bareName, baseline: m[1],
                    extra: [
                        ("data(for:) called by \(concurrency) workers as the bare loader is, req/s", m[byWorkers]),
                        ("its ratio to the bare loader", m[byWorkers] / m[1]),
                        ("the bare loader handed every request at once, as data(for:) is above, req/s", m[bareAllAtOnce]),
                        ("its ratio to the bare loader by workers", m[bareAllAtOnce] / m[1]),
                    ],
                    repetitions: repetitions))
            if concurrency == 8 {
                figures.append(
                    Figure(
                        benchmark: "network",
                        name: "ImagePipeline.data(for:) storing to DiskCache, concurrency 8, same", unit: "req/s",
                        higherIsBetter: true, ours: m[2], baselineName: "\(bareName) + plain file write of each body",
                        baseline: m[3],
                        extra: [("entries in the DiskCache at the end (of \(imageCount))", Double(diskCache?.statistics().entryCount ?? 0))],
                        repetitions: repetitions))
                figures.append(
                    Figure(
                        benchmark: "network", name: "ImagePipeline.image(for:) with decode, concurrency 8, same",
                        unit: "req/s", higherIsBetter: true, ours: m[4], baselineName: bareName + " (no decode)",
                        baseline: m[1], repetitions: repetitions))
            }
        }
        for loader in loaders {
            #if os(Linux)
            try await loader.shutdown()
            #else
            await loader.shutdown()
            #endif
        }
        try await server.shutdown()
        return figures
    }

    /// open, write, close: the least a disk cache must do to keep the bytes.
    static func plainWrite(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchmarkSkip(message: "cannot open \(path): errno \(errno)") }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count else { throw BenchmarkSkip(message: "short write to \(path)") }
    }
}
