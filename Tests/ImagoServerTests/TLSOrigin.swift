#if os(Linux)
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A real https origin on 127.0.0.1 for the loader tests: TLS with the certificate for
/// `origin.test` and `*.origin.test` (``TestCertificates``), HTTP/1.1 with keep-alive, on an event
/// loop of its own (stopped by ``stop()``, so its descriptors come and go with it).
///
/// It answers `GET /image` with ``body``, `GET /hop/<host>` with a 302 to
/// `https://<host>:<port>/image`, and anything else with 404; and it counts the connections open
/// now, which are the loader's, since only the loader connects.
final class TLSOrigin: Sendable {
    /// The port the system chose.
    let port: Int
    /// What `/image` answers.
    let body: [UInt8]
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let counters: Counters

    /// The bound port and the connection and request counts, shared with the event loop: counts
    /// need no lock.
    final class Counters: Sendable {
        private let bound = Atomic(0)
        private let openNow = Atomic(0)
        private let acceptedSoFar = Atomic(0)
        private let answered = Atomic(0)

        var port: Int {
            get { bound.load(ordering: .sequentiallyConsistent) }
            set { bound.store(newValue, ordering: .sequentiallyConsistent) }
        }
        var open: Int { openNow.load(ordering: .sequentiallyConsistent) }
        var accepted: Int { acceptedSoFar.load(ordering: .sequentiallyConsistent) }
        var requests: Int { answered.load(ordering: .sequentiallyConsistent) }
        func opened() {
            openNow.add(1, ordering: .sequentiallyConsistent)
            acceptedSoFar.add(1, ordering: .sequentiallyConsistent)
        }
        func closed() { openNow.subtract(1, ordering: .sequentiallyConsistent) }
        func requested() { answered.add(1, ordering: .sequentiallyConsistent) }
    }

    /// Connections open now (TLS established or not).
    var openConnections: Int { counters.open }
    /// Connections accepted since the start.
    var acceptedConnections: Int { counters.accepted }
    /// Requests answered since the start.
    var requests: Int { counters.requests }

    private init(port: Int, body: [UInt8], group: MultiThreadedEventLoopGroup, listener: any Channel, counters: Counters) {
        self.port = port
        self.body = body
        self.group = group
        self.listener = listener
        self.counters = counters
    }

    /// Starts an origin on a free port of 127.0.0.1 whose `/image` is `body`.
    static func start(body: [UInt8]) async throws -> TLSOrigin {
        let certificate = try NIOSSLCertificate(bytes: Array(TestCertificates.origin.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(TestCertificates.originKey.utf8), format: .pem)
        let context = try NIOSSLContext(
            configuration: .makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let counters = Counters()
        let listener: any Channel
        do {
            listener = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    counters.opened()
                    channel.closeFuture.whenComplete { _ in counters.closed() }
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(Handler(body: body, counters: counters))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        guard let bound = listener.localAddress?.port else {
            try? await listener.close()
            try? await group.shutdownGracefully()
            throw ChannelError.unknownLocalAddress
        }
        counters.port = bound
        return TLSOrigin(port: bound, body: body, group: group, listener: listener, counters: counters)
    }

    /// `https://<host>:<port><path>`.
    func url(host: String, path: String) -> URL {
        URL(string: "https://\(host):\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Waits, at most `limit`, until no connection is open; whether none is.
    func waitUntilNoConnectionIsOpen(within limit: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while openConnections > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return openConnections == 0
    }

    /// Stops listening, closes what is open and stops the event loop.
    func stop() async {
        try? await listener.close()
        try? await group.shutdownGracefully()
    }

    /// One connection's requests.
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let body: [UInt8]
        private let counters: Counters
        private var path = ""
        private var keepAlive = true

        init(body: [UInt8], counters: Counters) {
            self.body = body
            self.counters = counters
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                path = head.uri
                keepAlive = head.isKeepAlive
            case .body:
                break
            case .end:
                counters.requested()
                respond(context: context)
            }
        }

        private func respond(context: ChannelHandlerContext) {
            var headers = HTTPHeaders()
            let status: HTTPResponseStatus
            var payload: [UInt8] = []
            if path == "/image" {
                status = .ok
                headers.add(name: "Content-Type", value: "image/png")
                payload = body
            } else if path.hasPrefix("/hop/") {
                status = .found
                headers.add(name: "Location", value: "https://\(path.dropFirst("/hop/".count)):\(counters.port)/image")
            } else {
                status = .notFound
            }
            headers.add(name: "Content-Length", value: String(payload.count))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            if !payload.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: payload)))), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            if !keepAlive { context.close(promise: nil) }
        }
    }
}
#endif
