#if os(Linux) || os(macOS)
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The image proxy as a Hummingbird application: `/healthz`, `/metrics` (Prometheus), an
/// optional page at `/`, and every other GET (and HEAD) through the ``ImageProxy``, each request
/// logged and counted by one middleware.
///
/// Run it in a `ServiceGroup` with SIGTERM as a graceful-shutdown signal (``run(_:)`` does):
/// the server stops accepting, finishes the requests in flight, then returns.
public enum ImagoServer {
    /// The application for `proxy`, listening on `host:port` (0: any free port; `onRunning` is
    /// told the one bound). `page`, when given, is served at `/` as HTML.
    public static func application(
        proxy: ImageProxy, host: String = "127.0.0.1", port: Int = 8080, page: (@Sendable () -> String)? = nil,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        let logger = proxy.configuration.logger
        router.middlewares.add(AccessLogMiddleware<BasicRequestContext>(metrics: proxy.metrics, logger: logger))
        router.get("/healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain"], body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: proxy.metrics.emit())))
        }
        if let page {
            router.get("/") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: page())))
            }
        } else {
            router.get("/") { request, _ in await ProxyRoute.respond(to: request, with: proxy) }
        }
        // Every other path is a processing path (`**` matches any number of components); HEAD
        // is answered by the same route without the body.
        router.get("**") { request, _ in await ProxyRoute.respond(to: request, with: proxy) }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "imago"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    /// Runs `application` until SIGTERM or SIGINT, then drains the requests in flight and returns.
    public static func run(_ application: some ApplicationProtocol, logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: application)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
#endif
