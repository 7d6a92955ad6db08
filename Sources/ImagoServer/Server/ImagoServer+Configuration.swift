#if os(Linux)
extension ImagoServer {
    /// What one client may hold of the server, and which routes the application serves; every
    /// field has a documented default, chosen for a server on the open internet.
    ///
    /// Together these bound what a client costs: a connection slot (``maximumConnections``),
    /// for at most ``headerTimeout`` before it has sent a request (holding at most
    /// ``maximumRequestHeadSize`` bytes of its head) and ``idleTimeout`` between requests;
    /// while it reads a response, a few hundred KiB of queued bytes (a large body goes out in
    /// 64 KiB pieces, each only when the connection's 64 KiB write buffer has room), for as
    /// long as it keeps taking bytes (``writeTimeout``) at the ``minimumSendRate`` on average;
    /// and, for a large body, a share of ``maximumResponseBytesInFlight``.
    public struct Configuration: Sendable {
        /// Time a connection has to send a complete request (head and any body): from the
        /// connection's opening for its first request, from the first byte of each later one.
        /// A client that trickles a head a byte at a time is closed at this deadline whatever
        /// it sends (a read-idle timeout would be restarted by every byte). Default: 10 s, as
        /// imgproxy's `IMGPROXY_READ_REQUEST_TIMEOUT` and the usual Go `ReadHeaderTimeout`: a
        /// request to an image proxy is one short line and a few headers, which any client sends
        /// in one packet, so 10 s is ample for a slow mobile link yet keeps a slowloris's
        /// connections short-lived.
        public var headerTimeout: Duration
        /// Time a keep-alive connection may wait, silent, for its next request once a response
        /// has gone out. Default: 75 s, as nginx's `keepalive_timeout`: longer than the 60 s
        /// idle timeout of common load balancers (nginx's upstream keep-alive, AWS ALB), so the
        /// proxy never closes a connection the balancer is about to reuse. A long idle timeout
        /// costs little here: at ``maximumConnections`` the longest-waiting connection is closed
        /// to make room, idle ones included.
        public var idleTimeout: Duration
        /// Time a response may make no progress: the connection's write buffer stays over its
        /// high-water mark (64 KiB) without draining under its low-water mark (32 KiB), which is
        /// what nginx's `send_timeout` measures ("between two successive write operations").
        /// The operating system takes more of a response only once the client has read enough to
        /// free part of the socket's send buffer (on Linux a third of it; Linux sizes the buffer
        /// itself, up to 4 MiB by default), so this is how long a client may stop reading, or
        /// read less than that, before it is closed; on loopback, with a 4 MiB buffer, a reader
        /// must take about 1.4 MiB per timeout. A response that fits in the socket's buffers (a
        /// thumbnail) is never held by it. Default: 30 s, half of nginx's 60 s: long enough
        /// for a phone that loses its signal for a while, short enough that a reader who stopped
        /// reading frees its slot and its share of the budget soon.
        public var writeTimeout: Duration
        /// Bytes per second a response must go out at, on average from its head, once it is
        /// more than ``sendRateGrace`` old: a response that has gone on for `t` seconds must
        /// have handed the operating system at least `rate x (t - grace)` of its bytes, or the
        /// connection is closed (and the body's share of ``maximumResponseBytesInFlight``
        /// freed). So a response of `n` bytes is held at most `grace + n / rate`. The
        /// ``writeTimeout`` alone keeps a client that takes a few bytes at a time: the write
        /// buffer need only drain from its high-water mark to under its low-water mark (32 KiB)
        /// within each timeout, about 1 KiB/s; this closes such a reader. A response the
        /// socket's buffers take whole (a thumbnail) is handed over at once and never held by
        /// it. 0 turns it off. Default: 4 KiB/s (32 kbit/s), under the 40-50 kbit/s a phone gets
        /// on GPRS, the slowest 2G data, and an eighth of WebPageTest's "2G" profile (280
        /// kbit/s): a phone on 2G passes, even sharing its link among a few large images,
        /// while a 1 MiB body is held about five minutes at most (30 s + 256 s).
        public var minimumSendRate: Int
        /// How far behind ``minimumSendRate`` a response may fall: time for a connection's slow
        /// start, or a phone that loses its signal for a while. Default: 30 s, as
        /// ``writeTimeout``.
        public var sendRateGrace: Duration
        /// Connections open at once. At the limit a new connection closes the one that has
        /// waited longest without a request in progress (a half-sent head or an idle keep-alive
        /// connection), so held connections never lock out a fresh client; when every
        /// connection has a request in progress, the new one is accepted and closed at once.
        /// Each connection is a file descriptor: the process's limit (`ulimit -n`) must leave
        /// room for this many plus the sources' connections and the disk cache (``ImagoServer``
        /// warns at start when it does not). At least 1. Default: 2,048, as imgproxy's
        /// `IMGPROXY_MAX_CLIENTS`.
        public var maximumConnections: Int
        /// Bytes of response bodies larger than 64 KiB that may be on their way to clients at
        /// once; beyond it a request is answered 503 `overloaded` with `Retry-After`. A body
        /// shared by several responses (the response cache's copy of a popular image) counts
        /// once, however many clients read it, so it is the memory held for slow readers that is
        /// bounded, not the number of readers. One body is always let through when none is in
        /// flight, so a body larger than the budget can still be served alone. Default: 256 MiB,
        /// twice the proxy's default response cache: room for several of the largest outputs
        /// (a 4096x4096 PNG) on their way at once.
        public var maximumResponseBytesInFlight: Int
        /// Bytes of a request's head: its target (the path) and its header fields together; a
        /// larger head is answered 400 and the connection closed. It bounds what a half-sent
        /// head holds in memory. Default: 32 KiB, the header space of nginx's default
        /// `large_client_header_buffers` (4 x 8 KiB): room for a processing path with a long
        /// base64 source and a browser's cookies, under half of Hummingbird's 80 KiB default.
        /// Values under 1 KiB count as 1 KiB.
        public var maximumRequestHeadSize: Int
        /// Whether `/metrics` is served by the application itself; `false` leaves it to a
        /// separate ``ImagoServer/metricsApplication(proxy:host:port:configuration:onRunning:)``
        /// on a port that is not exposed. Default: `true`.
        public var servesMetrics: Bool
        /// A further path answered `200 ok` as `/healthz` and `/health` are (imgproxy's
        /// `IMGPROXY_HEALTH_CHECK_PATH`, for a load balancer that probes a path of its own); it
        /// takes precedence over a processing path of the same name. Default: `nil`.
        public var healthCheckPath: String? = nil
        /// A path every route is served under (imgproxy's `IMGPROXY_PATH_PREFIX`): with `/img`,
        /// processing paths are `/img/{signature}/…` (the signature covers what follows the
        /// prefix), health is `/img/health`, metrics `/img/metrics`; paths outside it answer 404.
        /// It starts with `/` and does not end with one. Default: `""`, no prefix.
        public var pathPrefix: String = ""
        /// The `Access-Control-Allow-Origin` of every processing response (with
        /// `Access-Control-Allow-Methods: GET, OPTIONS`), and of `OPTIONS` preflights, which are
        /// answered 200 (imgproxy's `IMGPROXY_ALLOW_ORIGIN`). Default: `nil`, no CORS headers.
        public var allowOrigin: String? = nil
        /// A secret processing requests must carry as `Authorization: Bearer {secret}` (imgproxy's
        /// `IMGPROXY_SECRET`, for a proxy behind a CDN that adds it); others answer 403
        /// `invalid_secret`. Health and metrics need none. Default: `nil`, no secret.
        public var secret: String? = nil
        /// Whether a debug line of memory figures (the process's resident set, the decoded tier,
        /// decodes under way, the response cache, response bytes in flight) is logged after each
        /// request the proxy answers: imgproxy's `IMGPROXY_LOG_MEM_STATS`. Default: `false`.
        package var logsMemoryStatistics = false
        /// Whether a large body waits one turn of its connection's event loop after each piece
        /// (see `ProxyRoute`), which keeps a slow reader's queue to a few pieces. Always `true`
        /// in use; `imago serve` built for debugging turns it off when the environment has
        /// `IMAGO_SERVE_UNPACED_BODIES=1`, so the hostile-client suite can show that its memory
        /// check fails without the bound.
        package var pacesLargeBodies = true

        public init(
            headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(75), writeTimeout: Duration = .seconds(30),
            maximumConnections: Int = 2048, maximumResponseBytesInFlight: Int = 256 * 1024 * 1024, maximumRequestHeadSize: Int = 32 * 1024,
            servesMetrics: Bool = true, minimumSendRate: Int = 4 * 1024, sendRateGrace: Duration = .seconds(30)
        ) {
            self.headerTimeout = headerTimeout
            self.idleTimeout = idleTimeout
            self.writeTimeout = writeTimeout
            self.maximumConnections = maximumConnections
            self.maximumResponseBytesInFlight = maximumResponseBytesInFlight
            self.maximumRequestHeadSize = maximumRequestHeadSize
            self.servesMetrics = servesMetrics
            self.minimumSendRate = minimumSendRate
            self.sendRateGrace = sendRateGrace
        }
    }
}
#endif
