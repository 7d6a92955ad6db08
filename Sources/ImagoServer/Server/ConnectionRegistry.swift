#if os(Linux)
import Imago
import NIOCore
import Prometheus

/// Performs ``ConnectionTable``'s decisions for one listening server, whose connections live on
/// several event loops, and counts them: `imago_serve_open_connections` and
/// `imago_serve_connections_dropped_total{reason}` (`header_timeout`, `idle_timeout`,
/// `write_timeout`, `send_rate`: a response slower than the minimum send rate, `displaced`:
/// closed to make room at the cap, `refused`: the cap was full of requests in progress).
final class ConnectionRegistry: Sendable {
    private let table: Locked<ConnectionTable<ObjectIdentifier, any Channel>>
    private let registry: PrometheusCollectorRegistry?
    private let open: Gauge?

    init(maximumConnections: Int, metrics registry: PrometheusCollectorRegistry?) {
        table = Locked(ConnectionTable(maximumConnections: maximumConnections))
        self.registry = registry
        open = registry?.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "imago", subsystem: "serve", metricName: "open", unitName: "connections",
                helpText: "Client connections open now."))
    }

    /// Connections open now.
    var count: Int { table.withLock { $0.count } }

    /// Admits `channel`, closing the connection it displaces; `false` when it is refused (the
    /// caller closes it).
    func open(_ key: ObjectIdentifier, channel: any Channel, at now: NIODeadline) -> Bool {
        switch table.withLock({ $0.open(key, handle: channel, at: now) }) {
        case .admit:
            open?.increment()
            return true
        case .admitClosing(let displaced):
            recordDrop("displaced")
            displaced.close(promise: nil)  // its own close is then a no-op here: it left the table
            return true
        case .refuse:
            recordDrop("refused")
            return false
        }
    }

    /// A connection's request began (`nil`) or it began waiting again.
    func update(_ key: ObjectIdentifier, waitingSince: NIODeadline?) {
        table.withLock { $0.update(key, waitingSince: waitingSince) }
    }

    /// A connection closed.
    func close(_ key: ObjectIdentifier) {
        let removed = table.withLock { table in
            let before = table.count
            table.close(key)
            return table.count < before
        }
        if removed { open?.decrement() }
    }

    /// A connection closed by the server, and why.
    func recordDrop(_ reason: String) {
        registry?.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "imago", subsystem: "serve", metricName: "connections_dropped", unitName: "total",
                helpText: "Client connections closed by the server, by reason."),
            labels: [("reason", reason)]
        ).increment()
    }
}
#endif
