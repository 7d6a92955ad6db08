#if os(Linux)
import Prometheus

/// The proxy's Prometheus instruments, served at `/metrics`: requests by status, latency, hits
/// per cache tier, bytes fetched from sources, requests abandoned in the admission queue. The
/// pipeline's own swift-metrics instruments are exported through the same registry (``factory``).
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// The first word of every metric's name (imgproxy's `IMGPROXY_PROMETHEUS_NAMESPACE`): `imago`
    /// unless set, e.g. `imago_serve_requests_total`.
    public let namespace: String
    private let latency: DurationHistogram
    private let sourceBytes: Counter

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), namespace: String = "imago") {
        self.registry = registry
        self.namespace = namespace
        latency = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                namespace: namespace, subsystem: "serve", metricName: "request_duration", unitName: "seconds",
                helpText: "Time from request to response, by status class."),
            labels: [],
            buckets: [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10)])
        sourceBytes = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: namespace, subsystem: "serve", metricName: "source", unitName: "bytes",
                helpText: "Bytes downloaded from image sources."),
            labels: [])
    }

    /// Makes swift-metrics instruments in ``registry`` (for the pipeline's configuration).
    public var factory: PrometheusMetricsFactory { PrometheusMetricsFactory(registry: registry) }

    func recordRequest(status: Int, duration: Duration) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: namespace, subsystem: "serve", metricName: "requests", unitName: "total",
                helpText: "Requests answered, by status."),
            labels: [("status", "\(status)")]
        ).increment()
        latency.record(duration)
    }

    /// A response served from `tier`: `response` (encoded bytes), `memory`, `disk`, `network`.
    func recordHit(tier: String) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: namespace, subsystem: "serve", metricName: "cache_hits", unitName: "total",
                helpText: "Images served, by the tier that had them (network: fetched from the source)."),
            labels: [("tier", tier)]
        ).increment()
    }

    /// A request left the admission queue unmade because its client went while it waited.
    func recordAbandonedWait() {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: namespace, subsystem: "serve", metricName: "queue_abandoned", unitName: "total",
                helpText: "Requests that left the admission queue unmade because their client went while they waited."),
            labels: []
        ).increment()
    }

    func recordSourceBytes(_ count: Int) {
        sourceBytes.increment(by: Int64(count))
    }

    /// The exposition text.
    public func emit() -> String { registry.emitToString() }
}
#endif
