#if os(Linux)
import Foundation
import Imago
import Prometheus

/// Performs ``ResponseBudget`` for the server's responses and shows it as
/// `imago_serve_response_in_flight_bytes`.
final class ResponseBytesInFlight: Sendable {
    /// One admitted body: it owns the bytes, and gives its share of the budget back when the
    /// last reference to it goes (the response body was written out, failed, or was dropped
    /// unwritten, as for HEAD). Owning the bytes keeps their storage, which names a shared
    /// body, from being freed and reused while the budget still counts it.
    final class Lease: Sendable {
        let body: Data
        private let storage: ResponseBudget.Storage?
        private let owner: ResponseBytesInFlight

        fileprivate init(body: Data, storage: ResponseBudget.Storage?, owner: ResponseBytesInFlight) {
            self.body = body
            self.storage = storage
            self.owner = owner
        }

        deinit {
            owner.release(bytes: body.count, storage: storage)
        }
    }

    private let budget: Locked<ResponseBudget>
    private let gauge: Gauge?

    init(limit: Int, metrics registry: PrometheusCollectorRegistry?) {
        budget = Locked(ResponseBudget(limit: limit))
        gauge = registry?.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "imago", subsystem: "serve", metricName: "response_in_flight", unitName: "bytes",
                helpText: "Bytes of large response bodies on their way to clients, each shared body once."))
    }

    /// Bytes counted now.
    var bytesInFlight: Int { budget.withLock { $0.bytesInFlight } }

    /// A lease on `body`, or `nil` when the budget refuses it.
    func lease(_ body: Data) -> Lease? {
        let storage = Self.storage(of: body)
        let (admitted, total) = budget.withLock { budget in
            (budget.acquire(bytes: body.count, storage: storage), budget.bytesInFlight)
        }
        guard admitted else { return nil }
        gauge?.set(Int64(total))
        return Lease(body: body, storage: storage, owner: self)
    }

    private func release(bytes: Int, storage: ResponseBudget.Storage?) {
        let total = budget.withLock { budget in
            budget.release(bytes: bytes, storage: storage)
            return budget.bytesInFlight
        }
        gauge?.set(Int64(total))
    }

    /// The address of `body`'s bytes, which names its storage while a lease keeps it alive.
    /// Small bodies can live inline in the `Data` value, at no stable address: they are not
    /// shared (and they are never large enough to lease anyway).
    static func storage(of body: Data) -> ResponseBudget.Storage? {
        guard body.count >= 1024 else { return nil }
        return body.withUnsafeBytes { bytes in
            bytes.baseAddress.map { ResponseBudget.Storage(address: UInt(bitPattern: $0), count: bytes.count) }
        }
    }
}
#endif
