#if os(Linux)
import NIOCore

/// The first handler of every client connection: it sees the raw bytes, before HTTP decoding,
/// so it knows when a request began even while its head is incomplete, and the last, so it
/// counts the bytes handed to the channel. It keeps the connection's ``ConnectionDeadlines``,
/// closes the connection when one passes, holds its place in the ``ConnectionRegistry`` (which
/// may refuse it, or close another to admit it), and tells the connection's
/// ``ClientDeparture`` when the client goes (its side closed, or the connection).
///
/// Request and response boundaries come from ``RequestBoundaryHandler``, after the HTTP codec,
/// as outbound user events (``Event``), which travel towards this handler at the head.
///
/// One timer per connection, armed for the earliest deadline; a deadline that moves later
/// leaves the timer where it is, and the timer re-arms itself when it fires early, so a request
/// costs no timer churn.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// A boundary of a request or a response, sent by ``RequestBoundaryHandler``.
    enum Event: Sendable {
        case requestHeadRead
        case requestEndRead
        /// A response's head is about to be written.
        case responseStarted
        /// The response's last byte was handed to the operating system.
        case responseWritten
    }

    private var deadlines: ConnectionDeadlines
    private let registry: ConnectionRegistry
    private var isOpen = false
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private let departure: ClientDeparture
    /// Bytes handed to the channel since the connection opened (saturating).
    private var queued = 0
    /// `queued` when the transfer going out now (one response, or pipelined ones) began.
    private var queuedBeforeResponse = 0

    init(limits: ConnectionDeadlines.Limits, registry: ConnectionRegistry, departure: ClientDeparture) {
        deadlines = ConnectionDeadlines(limits: limits, openedAt: .now())
        self.registry = registry
        self.departure = departure
    }

    private var key: ObjectIdentifier { ObjectIdentifier(self) }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { opened(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadlines.bytesRead(at: .now())
        arm(context: context)
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client closed its side (Hummingbird allows half-closure, so the channel stays
        // open to write): it has gone, for a request that waits on its behalf.
        if case .inputClosed? = event as? ChannelEvent { departure.depart() }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let (sum, overflow) = queued.addingReportingOverflow(unwrapOutboundIn(data).readableBytes)
        queued = overflow ? .max : sum
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        deadlines.writabilityChanged(isWritable: context.channel.isWritable, at: .now())
        arm(context: context)
        context.fireChannelWritabilityChanged()
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let event = event as? Event else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        let wasWaiting = deadlines.waitingWithoutRequestSince
        switch event {
        case .requestHeadRead: deadlines.requestHeadRead()
        case .requestEndRead: deadlines.requestEndRead(at: .now())
        case .responseStarted:
            if deadlines.responseStarted(at: .now()) { queuedBeforeResponse = queued }
        case .responseWritten: deadlines.responseWritten(at: .now())
        }
        let waiting = deadlines.waitingWithoutRequestSince
        if isOpen, waiting != wasWaiting { registry.update(key, waitingSince: waiting) }
        arm(context: context)
        promise?.succeed()
    }

    /// Takes a place in the registry once the channel is active (once only).
    private func opened(context: ChannelHandlerContext) {
        guard !isOpen, context.channel.isActive else { return }
        isOpen = true
        guard registry.open(key, channel: context.channel, at: .now()) else {
            isOpen = false
            context.close(promise: nil)
            return
        }
        arm(context: context)
    }

    private func closed() {
        departure.depart()
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        if isOpen {
            isOpen = false
            registry.close(key)
        }
    }

    /// Arms the timer for the earliest deadline, unless it already fires earlier.
    private func arm(context: ChannelHandlerContext) {
        guard isOpen, let next = deadlines.next?.deadline else { return }
        if let timerDeadline, timerDeadline <= next { return }
        timer?.cancel()
        timerDeadline = next
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: next) { [self] in
            self.fire(context: context)
        }
    }

    private func fire(context: ChannelHandlerContext) {
        timer = nil
        timerDeadline = nil
        guard isOpen else { return }
        // What of the response has left the channel for the operating system: what was handed
        // to it, less what it still buffers (it reports that only when asked).
        let buffered = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        deadlines.responseSent(bytes: max(0, queued - queuedBeforeResponse - buffered))
        if let expiry = deadlines.expiry(at: .now()) {
            registry.recordDrop(expiry.rawValue)
            context.close(promise: nil)
        } else {
            arm(context: context)
        }
    }
}

@available(*, unavailable)
extension ConnectionGuard: Sendable {}
#endif
