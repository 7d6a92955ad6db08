#if os(Linux)
import Hummingbird
import NIOCore

/// The request context of the server's routes: Hummingbird's basic context and the event loop
/// of the request's connection, which ``ProxyRoute`` paces a large body by.
struct ProxyRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The loop that runs the request's connection.
    let eventLoop: any EventLoop

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        eventLoop = source.channel.eventLoop
    }
}
#endif
