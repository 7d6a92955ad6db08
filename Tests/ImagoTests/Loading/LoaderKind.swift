import Foundation
import Imago
import ImagoTestSupport
import Testing

/// The data loaders shipped with Imago, so that one test table runs against each of them.
enum LoaderKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    #if os(Linux)
    case httpClient
    #endif
    case urlSession

    var testDescription: String { rawValue }

    /// Runs `body` with a new loader of this kind and shuts the loader down afterwards.
    func withLoader<Result>(
        _ configuration: DataLoader.Configuration = DataLoader.Configuration(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (any DataLoading) async throws -> Result
    ) async throws -> Result {
        let (loader, shutdown) = makeLoader(configuration)
        let result: Result
        do {
            result = try await body(loader)
        } catch {
            try await shutdown()
            throw error
        }
        try await shutdown()
        return result
    }

    /// A loader of this kind for a pipeline, which shuts it down with itself.
    func makeDataLoader(_ configuration: DataLoader.Configuration = DataLoader.Configuration()) -> any DataLoading {
        makeLoader(configuration).0
    }

    private func makeLoader(
        _ configuration: DataLoader.Configuration
    ) -> (any DataLoading, shutdown: @Sendable () async throws -> Void) {
        switch self {
        #if os(Linux)
        case .httpClient:
            let loader = HTTPClientDataLoader(configuration: configuration)
            return (loader, { try await loader.shutdown() })
        #endif
        case .urlSession:
            let loader = URLSessionDataLoader(configuration: configuration)
            return (loader, { await loader.shutdown() })
        }
    }
}

/// Collects progress reports, which arrive on the transport's threads.
final class ProgressLog: Sendable {
    private let reports = Locked<[ImageTask.Progress]>([])

    var all: [ImageTask.Progress] { reports.withLock { $0 } }

    @Sendable func record(_ progress: ImageTask.Progress) {
        reports.withLock { $0.append(progress) }
    }
}

extension DataLoading {
    /// The response, ignoring progress.
    func load(_ url: URL, headers: [String: String] = [:]) async throws(ImagePipeline.Error) -> DataLoader.Response {
        try await loadData(for: DataLoader.Request(url: url, headers: headers)) { _ in }
    }

    /// Loads `urls` all at once and waits for every one of them.
    func loadConcurrently(_ urls: [URL]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for url in urls {
                group.addTask { _ = try await load(url) }
            }
            try await group.waitForAll()
        }
    }

    /// The error that loading `url` ends with, or nil when it succeeds.
    func error(
        loading url: URL, headers: [String: String] = [:],
        progress: @escaping @Sendable (ImageTask.Progress) -> Void = { _ in }
    ) async -> ImagePipeline.Error? {
        do {
            _ = try await loadData(for: DataLoader.Request(url: url, headers: headers), progress: progress)
            return nil
        } catch {
            return error
        }
    }
}
