#if os(Linux)
import NIOCore
import NIOHTTPTypes

/// Tells the ``ConnectionGuard`` at the head of the pipeline where requests and responses begin
/// and end, as it sees them after the HTTP codec: a request's head and end as they are decoded,
/// a response's head as it is written (the minimum send rate counts from it), a response's end
/// once its last byte has been handed to the operating system (so the idle deadline never
/// starts while a slow reader still has bytes queued in the process).
final class RequestBoundaryHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: context.triggerUserOutboundEvent(ConnectionGuard.Event.requestHeadRead, promise: nil)
        case .body: break
        case .end: context.triggerUserOutboundEvent(ConnectionGuard.Event.requestEndRead, promise: nil)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            context.triggerUserOutboundEvent(ConnectionGuard.Event.responseStarted, promise: nil)
            context.write(data, promise: promise)
            return
        case .body:
            context.write(data, promise: promise)
            return
        case .end:
            break
        }
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.assumeIsolated().whenSuccess {
            context.triggerUserOutboundEvent(ConnectionGuard.Event.responseWritten, promise: nil)
        }
        context.write(data, promise: written)
    }
}

@available(*, unavailable)
extension RequestBoundaryHandler: Sendable {}
#endif
