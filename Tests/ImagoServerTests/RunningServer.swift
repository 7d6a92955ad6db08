#if os(Linux)
import AsyncHTTPClient
import Foundation
import Imago
import ImagoServer
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// An `ImagoServer` application running in-process on a free loopback port, with a client.
struct RunningServer {
    let proxy: ImageProxy
    let port: Int
    let group: ServiceGroup
    let task: Task<Void, any Error>
    let client: HTTPClient

    /// A response as the tests see it.
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// The `code` of a JSON error body.
        var errorCode: String? {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                let error = object["error"] as? [String: Any]
            else { return nil }
            return error["code"] as? String
        }
    }

    /// `server` sets the connection limits and routes (``ImagoServer/Configuration``); `logger`
    /// receives the proxy's lines (default: none is kept).
    static func start(
        _ configuration: ImageProxyConfiguration, resolver: any HostResolving = SystemResolver(), page: DemoPage? = nil,
        diskCache: DiskCache? = nil, server: ImagoServer.Configuration = ImagoServer.Configuration(), logger: Logger? = nil
    ) async throws -> RunningServer {
        var configuration = configuration
        configuration.logger = logger ?? Logger(label: "imago.serve.test", factory: { _ in SwiftLogNoOpLogHandler() })
        let proxy = ImageProxy.testing(configuration, resolver: resolver, diskCache: diskCache)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let html = page.map { page in { @Sendable in page.html } }
        let application = ImagoServer.application(proxy: proxy, host: "127.0.0.1", port: 0, page: html, configuration: server) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: application)], logger: configuration.logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            task.cancel()
            throw CancellationError()
        }
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        return RunningServer(proxy: proxy, port: port, group: group, task: task, client: client)
    }

    func get(_ path: String, headers: [String: String] = [:], method: HTTPMethod = .GET) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .init(ImageProxy.patience))
        let body = try await response.body.collect(upTo: 64 * 1024 * 1024)
        var fields: [String: String] = [:]
        for field in response.headers { fields[field.name.lowercased()] = field.value }
        return Reply(status: Int(response.status.code), headers: fields, body: Data(body.readableBytesView))
    }

    /// Graceful shutdown: the server finishes what is in flight, then `run` returns.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
        try await client.shutdown()
        await proxy.shutdown()
    }
}

extension ImageProxy {
    /// How long a test waits for what a starved process may be slow at: sources, replies.
    static let patience = Duration.seconds(300)

    /// A proxy whose loader time limits, where the test leaves them at their defaults, are
    /// ``patience``. Under a sanitizer, with eight tests at a time on two cores, a loopback download
    /// has waited longer than the default 30 s for a thread of the cooperative pool (the tsan stage
    /// of the CI run at 7cc45b5: five ServerTests answered 504 `source_timeout`). A limit a test
    /// sets is kept: that limit is what the test is about.
    static func testing(
        _ configuration: ImageProxyConfiguration, resolver: any HostResolving = SystemResolver(), diskCache: DiskCache? = nil
    ) -> ImageProxy {
        var configuration = configuration
        let defaults = DataLoader.Configuration()
        if configuration.loaderConfiguration.connectTimeout == defaults.connectTimeout {
            configuration.loaderConfiguration.connectTimeout = patience
        }
        if configuration.loaderConfiguration.downloadTimeout == defaults.downloadTimeout {
            configuration.loaderConfiguration.downloadTimeout = patience
        }
        if configuration.loaderConfiguration.stallTimeout == defaults.stallTimeout {
            configuration.loaderConfiguration.stallTimeout = patience
        }
        return ImageProxy(configuration: configuration, resolver: resolver, diskCache: diskCache)
    }
}

/// Runs `body` with a server, stopping it afterwards whatever happens.
func withServer<Result>(
    _ configuration: ImageProxyConfiguration, resolver: any HostResolving = SystemResolver(),
    server serverConfiguration: ImagoServer.Configuration = ImagoServer.Configuration(), logger: Logger? = nil,
    _ body: (RunningServer) async throws -> Result
) async throws -> Result {
    let server = try await RunningServer.start(configuration, resolver: resolver, server: serverConfiguration, logger: logger)
    do {
        let result = try await body(server)
        try await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
}
#endif
