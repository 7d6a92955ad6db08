#if os(Linux)
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Adds `X-Content-Type-Options: nosniff` to every response head the connection writes: the
/// proxy's images and errors, `/healthz`, `/metrics`, the page, and the answers Hummingbird
/// writes itself (a 404 of the router, a 400 for a malformed request). A browser then trusts
/// each `Content-Type` instead of guessing from the bytes, so a source that smuggles HTML or
/// script into an "image" cannot have it run under this server's origin.
final class NoSniffHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let field = HTTPField.Name("X-Content-Type-Options")

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data), let name = Self.field else {
            context.write(data, promise: promise)
            return
        }
        head.headerFields[name] = "nosniff"
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}

@available(*, unavailable)
extension NoSniffHandler: Sendable {}
#endif
