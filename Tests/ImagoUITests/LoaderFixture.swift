import Foundation
import Imago
import ImagoTestSupport
import Testing
@testable import ImagoUI

/// What every loader test needs: a loopback server, a pipeline on it whose connectivity the test
/// switches, and manual clocks for the pipeline (connectivity waits) and for the loader (the
/// offline hint and the timeout).
@MainActor
struct LoaderFixture {
    let server: TestServer
    let pipeline: ImagePipeline
    /// Whether the pipeline's connectivity says the network is reachable.
    let network: NetworkSwitch
    /// The pipeline's clock: while the network is off, a download waits for it, checking every
    /// 250 ms of this clock, so it is held until the test advances it.
    let pipelineClock: ManualClock
    /// The loaders' clock.
    let clock: ManualClock

    /// Runs `body` with a started server and a fresh pipeline (with a disk cache when asked).
    static func with(diskCache: Bool = false, _ body: (LoaderFixture) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-ui-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = NetworkSwitch()
        let pipelineClock = ManualClock()
        // Held downloads must not run into the loader's real-time limits while a busy machine
        // runs the test.
        let limits = DataLoader.Configuration(downloadTimeout: .seconds(600), stallTimeout: .seconds(600))
        let configuration = ImagePipeline.Configuration(
            dataLoader: ImagePipeline.Configuration.makeDefaultDataLoader(configuration: limits),
            memoryCache: MemoryCache(), diskCache: diskCache ? try DiskCache(directory: directory) : nil,
            connectivity: network.connectivity, waitsForConnectivity: .seconds(3_600), clock: pipelineClock)
        try await withTestServer { server in
            try await body(LoaderFixture(
                server: server, pipeline: ImagePipeline(configuration: configuration), network: network,
                pipelineClock: pipelineClock, clock: ManualClock()))
        }
    }

    /// A loader on this fixture's pipeline and loader clock.
    func makeLoader(
        timeout: Duration? = nil, disappearBehavior: ImageLoader.DisappearBehavior = .cancel
    ) -> ImageLoader {
        ImageLoader(pipeline: pipeline, configuration: configuration(timeout: timeout, disappearBehavior: disappearBehavior))
    }

    /// The loader configuration ``makeLoader(timeout:disappearBehavior:)`` uses.
    func configuration(
        timeout: Duration? = nil, disappearBehavior: ImageLoader.DisappearBehavior = .cancel
    ) -> ImageLoader.Configuration {
        ImageLoader.Configuration(timeout: timeout, disappearBehavior: disappearBehavior, clock: clock)
    }

    /// Serves a real JPEG of `width` x `height` at `path` and returns a request for it.
    func serveJPEG(_ path: String, width: Int = 64, height: Int = 48, seed: Int = 1) throws -> ImageRequest {
        server.set(path, data: try Fixtures.jpeg(width: width, height: height, seed: seed), contentType: "image/jpeg")
        return ImageRequest(url: server.url(for: path))
    }

    /// Turns the network off, has `loader` load `request`, and returns the pipeline's task once
    /// it waits for the network.
    func loadWhileOffline(_ request: ImageRequest, with loader: ImageLoader) async throws -> ImageTask {
        try await holdForNetwork { loader.load(request) }
        return try #require(loader.imageTask)
    }

    /// Turns the network off and waits until the pipeline waits for it while loading `request`
    /// for a caller of its own, which keeps the shared work going after a loader leaves it.
    func holdForNetwork(_ request: ImageRequest) async throws -> ImageTask {
        var task: ImageTask?
        try await holdForNetwork { task = pipeline.imageTask(with: request) }
        return try #require(task)
    }

    /// Turns the network off, runs `start`, and waits until a download waits for the network.
    private func holdForNetwork(_ start: () -> Void) async throws {
        network.isReachable = false
        start()
        try #require(await eventually { pipelineClock.sleeperCount >= 1 })
    }

    /// Turns the network back on and keeps waking the downloads waiting for it until
    /// `condition` holds (at most 30 s); returns whether it did.
    func releaseNetwork(until condition: () -> Bool) async -> Bool {
        network.isReachable = true
        return await eventually {
            pipelineClock.advance(by: .seconds(1))
            return condition()
        }
    }
}

/// A network the test turns off and on.
final class NetworkSwitch: Sendable {
    private let state = Locked(true)

    var isReachable: Bool {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    var connectivity: Connectivity {
        Connectivity { [self] in isReachable }
    }
}

/// Every phase a loader went through, as short strings, in order.
@MainActor
final class PhaseRecorder {
    private(set) var phases: [String] = []

    init(_ loader: ImageLoader) {
        loader.phaseDidChange = { [weak self] phase in self?.phases.append(phase.summary) }
    }
}

extension ImageLoader.Phase {
    /// `empty`, `loading`, `loading(progress)`, `loading(waiting)`, `preview(SCANS)`, `success(network)`,
    /// `failure(timeout)`, `failure(<pipeline error code>)`.
    var summary: String {
        switch self {
        case .empty: "empty"
        case .loading(let progress, let isWaiting): isWaiting ? "loading(waiting)" : progress == nil ? "loading" : "loading(progress)"
        case .preview(let preview, _): "preview(\(preview.scanCount))"
        case .success(let response): "success(\(response.source))"
        case .failure(.timedOut): "failure(timeout)"
        case .failure(.pipeline(let error)): "failure(\(error.code))"
        }
    }

    var response: ImageResponse? {
        if case .success(let response) = self { response } else { nil }
    }

    var isWaitingForNetwork: Bool {
        if case .loading(_, let isWaiting) = self { isWaiting } else { false }
    }
}
