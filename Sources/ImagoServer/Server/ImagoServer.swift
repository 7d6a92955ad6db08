#if os(Linux)
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The image proxy as a Hummingbird application: `/healthz` and `/health` (and
/// ``Configuration/healthCheckPath``), `/metrics` (Prometheus; or on a
/// separate ``metricsApplication(proxy:host:port:configuration:onRunning:)``), an optional page
/// at `/`, and every other GET (and HEAD) through the ``ImageProxy``, each request logged and
/// counted by one middleware. Every route is under ``Configuration/pathPrefix`` when one is set. What a client may hold (connections, time, queued bytes) is bounded
/// by a ``Configuration``.
///
/// Run it in a `ServiceGroup` with SIGTERM as a graceful-shutdown signal (`run` does, for one
/// application or several): the server stops accepting, finishes the requests in flight, then returns.
public enum ImagoServer {
    /// The application for `proxy`, listening on `host:port` (0: any free port; `onRunning` is
    /// told the one bound). `page`, when given, is served at `/` as HTML.
    public static func application(
        proxy: ImageProxy, host: String = "127.0.0.1", port: Int = 8080, page: (@Sendable () -> String)? = nil,
        configuration: Configuration = Configuration(), onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: ProxyRequestContext.self, options: .autoGenerateHeadEndpoints)
        let logger = proxy.configuration.logger
        let inFlight = ResponseBytesInFlight(limit: configuration.maximumResponseBytesInFlight, metrics: proxy.metrics.registry)
        // imgproxy's `IMGPROXY_PATH_PREFIX`: every route below is under it, health included.
        let prefix = configuration.pathPrefix
        router.middlewares.add(AccessLogMiddleware<ProxyRequestContext>(metrics: proxy.metrics, logger: logger))
        // `/healthz`, imgproxy's `/health`, and the operator's `IMGPROXY_HEALTH_CHECK_PATH`.
        for path in Set(["/healthz", "/health"] + [configuration.healthCheckPath].compactMap { $0 }) {
            router.get(RouterPath(prefix + path)) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/plain", .cacheControl: "no-cache"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
            }
        }
        if configuration.servesMetrics {
            router.get(RouterPath(prefix + "/metrics")) { _, _ in metricsResponse(proxy) }
        } else {
            // Not a processing path either: 404, as for any path this server does not serve.
            router.get(RouterPath(prefix + "/metrics")) { _, _ -> Response in throw HTTPError(.notFound) }
        }
        if let page {
            router.get(RouterPath(prefix + "/")) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: page())))
            }
        } else {
            router.get(RouterPath(prefix + "/")) { request, context in
                await ProxyRoute.respond(to: request, context: context, with: proxy, configuration: configuration, inFlight: inFlight)
            }
        }
        // Every other path under the prefix is a processing path (`**` matches any number of
        // components); HEAD is answered by the same route without the body. A path outside the
        // prefix matches no route: 404.
        router.get(RouterPath(prefix + "/**")) { request, context in
            await ProxyRoute.respond(to: request, context: context, with: proxy, configuration: configuration, inFlight: inFlight)
        }
        // CORS preflights, as imgproxy answers them: 200, with the CORS headers when configured.
        for path in [prefix + "/", prefix + "/**"] {
            router.on(RouterPath(path), method: .options) { _, _ in
                var fields = HTTPFields()
                ProxyRoute.addCORSHeaders(to: &fields, configuration: configuration)
                fields[.contentType] = "text/plain"
                return Response(status: .ok, headers: fields, body: ResponseBody())
            }
        }
        warnIfFileDescriptorsAreShort(for: configuration, logger: logger)
        return application(
            router: router, host: host, port: port, configuration: configuration, metrics: proxy, logger: logger, onRunning: onRunning)
    }

    /// An application that serves only `/metrics` for `proxy` (everything else is 404), on a
    /// port that is not exposed to clients: `imago serve --metrics-port`. Pair it with an
    /// ``application(proxy:host:port:page:configuration:onRunning:)`` whose configuration says
    /// `servesMetrics: false`, and run both (`run([application, metrics], logger:)`). It has its
    /// own connection limits, from `configuration`; its requests are not logged or counted.
    public static func metricsApplication(
        proxy: ImageProxy, host: String = "127.0.0.1", port: Int, configuration: Configuration = Configuration(),
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: ProxyRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.get("/metrics") { _, _ in metricsResponse(proxy) }
        return application(
            router: router, host: host, port: port, configuration: configuration, metrics: nil,
            logger: proxy.configuration.logger, onRunning: onRunning)
    }

    /// Runs `application` until SIGTERM or SIGINT, then drains the requests in flight and returns.
    public static func run(_ application: some ApplicationProtocol, logger: Logger) async throws {
        try await run([application], logger: logger)
    }

    /// Runs `applications` (the proxy and its metrics application, say) together until SIGTERM
    /// or SIGINT, then drains each one's requests in flight and returns; if one fails, the others
    /// are stopped.
    public static func run(_ applications: [any Service], logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: applications.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// `/metrics`: the proxy's Prometheus exposition.
    private static func metricsResponse(_ proxy: ImageProxy) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: proxy.metrics.emit())))
    }

    /// `router` served on `host:port` through the guarded HTTP/1 channel; `metrics`, when given,
    /// names the proxy whose registry counts the connections.
    private static func application(
        router: Router<ProxyRequestContext>, host: String, port: Int, configuration: Configuration, metrics: ImageProxy?,
        logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let registry = ConnectionRegistry(maximumConnections: configuration.maximumConnections, metrics: metrics?.metrics.registry)
        let server = HTTPServerBuilder { responder in
            GuardedHTTP1Channel(responder: responder, configuration: configuration, registry: registry)
        }
        return Application(
            router: router, server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "imago"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    /// Descriptors the process keeps for other uses than clients: the listening sockets, the
    /// sources' connections, the disk cache's files, the runtime's own.
    static let reservedFileDescriptors = 256

    /// Logs a warning when the process may open fewer files than `configuration` allows
    /// connections (plus ``reservedFileDescriptors``): past that limit, accepting fails, NIO
    /// backs off from accepting for a while, and new clients wait in the listen backlog although
    /// the connection cap is not reached.
    private static func warnIfFileDescriptorsAreShort(for configuration: Configuration, logger: Logger) {
        guard let files = FileDescriptorLimit.current else { return }
        let needed = UInt64(max(0, configuration.maximumConnections)) + UInt64(reservedFileDescriptors)
        guard files < needed else { return }
        logger.warning(
            "the process may open \(files) files, fewer than the \(configuration.maximumConnections) connections allowed plus \(reservedFileDescriptors) for sources and caches; raise it (ulimit -n \(needed)) or allow fewer connections")
    }
}
#endif
