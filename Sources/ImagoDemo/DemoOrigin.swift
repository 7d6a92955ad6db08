#if os(Linux) || os(macOS)
import Foundation
import HTTPTypes
import Hummingbird
import Imago
import Logging
import NIOCore
import ServiceLifecycle

/// The demo's origin server: a ``Gallery`` served over HTTP on a free loopback port, counting the
/// requests for each image, so `imago demo` can show that every image was downloaded exactly once.
///
/// Answers `GET` (and `HEAD`) of an image's path with its bytes, `Content-Type`, a strong `ETag`
/// and `Cache-Control: max-age=3600`, as a static file server would; any other path is 404.
public final class DemoOrigin: Sendable {
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL
    /// The loopback port it listens on.
    public let port: Int
    private let counter: Counter
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, counter: Counter, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.baseURL = URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
        self.counter = counter
        self.group = group
        self.task = task
    }

    /// Starts serving `gallery` on a free port of 127.0.0.1; returns once it listens.
    public static func start(serving gallery: Gallery) async throws -> DemoOrigin {
        let items = Dictionary(gallery.items.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let counter = Counter()
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.get("**") { request, _ -> Response in
            guard let item = items[request.uri.path] else {
                return Response(status: .notFound, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "not found\n")))
            }
            counter.count(item.path)
            return Response(
                status: .ok,
                headers: [
                    .contentType: item.format.mimeType, .contentLength: "\(item.data.count)",
                    .eTag: "\"\(item.path.utf8.count)-\(item.data.count)\"", .cacheControl: "max-age=3600",
                ],
                body: .init(byteBuffer: ByteBuffer(bytes: item.data)))
        }
        let logger = Logger(label: "imago.demo.origin", factory: { _ in SwiftLogNoOpLogHandler() })
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "imago-demo-origin"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [.init(service: application)], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            await group.triggerGracefulShutdown()
            try await task.value
            throw DemoOriginError()
        }
        return DemoOrigin(port: port, counter: counter, group: group, task: task)
    }

    /// The URL of the image at `path` (`/gallery/1.jpg`).
    public func url(for path: String) -> URL { baseURL.appendingPathComponent(String(path.drop { $0 == "/" })) }

    /// How many times the image at `path` was asked for.
    public func requestCount(for path: String) -> Int { counter.counts.withLock { $0[path] ?? 0 } }

    /// Stops listening once the requests in flight are answered.
    public func shutdown() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// The request counts, shared by the route and the origin.
    private final class Counter: Sendable {
        let counts = Locked<[String: Int]>([:])
        func count(_ path: String) { counts.withLock { $0[path, default: 0] += 1 } }
    }
}

/// The demo's origin did not start listening.
struct DemoOriginError: Error, CustomStringConvertible {
    var description: String { "the demo's origin server could not listen on 127.0.0.1" }
}
#endif
