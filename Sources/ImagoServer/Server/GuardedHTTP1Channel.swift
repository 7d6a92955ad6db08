#if os(Linux)
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 child channel with the connection limits in front: a
/// ``ConnectionGuard`` first in every pipeline (it must see raw bytes, before the HTTP decoder,
/// which Hummingbird's `additionalChannelHandlers` come after), and after the codec a
/// ``RequestBoundaryHandler`` and a ``NoSniffHandler``.
///
/// Hummingbird's own `idleTimeout` is left off: it restarts on every decoded request part, so
/// it cannot tell a head trickled for minutes from a quiet keep-alive connection, and the
/// guard applies both deadlines from one state machine that also decides which connection
/// makes room at the cap.
///
/// Each connection also has a ``ClientDeparture``, which the guard tells when the client goes
/// and which the task serving the connection sees as ``ClientDeparture/current``.
struct GuardedHTTP1Channel: ServerChildChannel {
    /// Hummingbird's channel value, and the connection's departure.
    struct Value: ServerChildChannelValue {
        let base: HTTP1Channel.Value
        let departure: ClientDeparture

        var channel: any Channel { base.channel }
    }

    let base: HTTP1Channel
    let limits: ConnectionDeadlines.Limits
    let registry: ConnectionRegistry

    init(responder: @escaping HTTPChannelHandler.Responder, configuration: ImagoServer.Configuration, registry: ConnectionRegistry) {
        let headSize = max(1024, configuration.maximumRequestHeadSize)
        base = HTTP1Channel(
            responder: responder,
            configuration: HTTP1Channel.Configuration(
                additionalChannelHandlers: [RequestBoundaryHandler(), NoSniffHandler()], idleTimeout: nil,
                httpDecoderConfiguration: .init(maxHeaderFieldSize: headSize, maxHeaderListSize: headSize)))
        limits = ConnectionDeadlines.Limits(configuration)
        self.registry = registry
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let departure = ClientDeparture()
        do {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGuard(limits: limits, registry: registry, departure: departure), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger).map { Value(base: $0, departure: departure) }
    }

    func handle(value: Value, logger: Logger) async {
        await ClientDeparture.$current.withValue(value.departure) {
            await base.handle(value: value.base, logger: logger)
        }
    }
}
#endif
