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
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

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
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(limits: limits, registry: registry), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
#endif
