#if os(Linux)
import Imago

/// Whether the client of one connection is still there, for work that waits on its behalf: the
/// connection's ``ConnectionGuard`` calls ``depart()`` when the client's side closes (a FIN, which
/// leaves the connection half-open as Hummingbird configures it, or a reset or a close), and
/// whoever registered with ``onDeparture(_:)`` hears it at once.
///
/// A client that closes its side has gone, as nginx (`proxy_ignore_client_abort off`) and Go's
/// `net/http` (the request's context) judge it: an HTTP/1.1 client has nothing more to send while
/// it waits for a response, so its FIN means it stopped waiting.
///
/// The route finds its connection's departure in ``current``, which ``GuardedHTTP1Channel`` sets
/// for the task that serves the connection.
final class ClientDeparture: Sendable {
    private struct State {
        var hasDeparted = false
        var nextToken: UInt64 = 0
        var handlers: [UInt64: @Sendable () -> Void] = [:]
    }

    /// A registration made by ``onDeparture(_:)``, to ``cancel(_:)`` it.
    struct Token: Sendable {
        fileprivate let number: UInt64
    }

    /// The departure of the connection the current task serves, if any.
    @TaskLocal static var current: ClientDeparture?

    private let state = Locked(State())

    /// Whether the client has gone.
    var hasDeparted: Bool { state.withLock { $0.hasDeparted } }

    /// Calls `handler` once, when the client goes, unless cancelled first; if it has gone already,
    /// calls it now and returns `nil`.
    func onDeparture(_ handler: @escaping @Sendable () -> Void) -> Token? {
        let token = state.withLock { state -> UInt64? in
            guard !state.hasDeparted else { return nil }
            let token = state.nextToken
            state.nextToken &+= 1
            state.handlers[token] = handler
            return token
        }
        guard let token else {
            handler()
            return nil
        }
        return Token(number: token)
    }

    /// The handler `token` names is no longer wanted.
    func cancel(_ token: Token) {
        _ = state.withLock { $0.handlers.removeValue(forKey: token.number) }
    }

    /// The client has gone: every registered handler runs (once, outside the lock).
    func depart() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.hasDeparted else { return [] }
            state.hasDeparted = true
            defer { state.handlers = [:] }
            return Array(state.handlers.values)
        }
        for handler in handlers { handler() }
    }
}
#endif
