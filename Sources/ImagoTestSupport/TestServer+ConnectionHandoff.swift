#if os(Linux) || os(macOS)  // the loopback server: where test suites run (see Package.swift)
import Imago
import NIOCore

extension TestServer {
    /// Holds every connection from the moment the listener makes it until a serving task takes
    /// it, so that none is ever dropped with its outbound writer unfinished.
    ///
    /// Why: NIO wraps an accepted channel in a `NIOAsyncChannel` inside the child initializer,
    /// before the accept loop sees it. It drops such a connection when the accept loop has gone (its
    /// task cancelled with connections still buffered) or when the initializer completes after the
    /// listener has closed, and a writer dropped unfinished is a precondition failure that kills
    /// the process. Held here, the connection stays alive; ``close()`` ends whichever no task took,
    /// through `executeThenClose`, which finishes the writer and closes the channel.
    final class ConnectionHandoff: Sendable {
        private struct State: Sendable {
            var waiting: [ObjectIdentifier: Connection] = [:]
            var isClosed = false
        }

        private let state = Locked(State())

        /// Called by the child initializer with each new connection. After ``close()``, ends it at
        /// once.
        func receive(_ connection: Connection) {
            let accepted = state.withLock { state in
                guard !state.isClosed else { return false }
                state.waiting[ObjectIdentifier(connection.channel)] = connection
                return true
            }
            if !accepted { Task { await Self.end(connection) } }
        }

        /// Takes `connection` for serving; false if ``close()`` has already ended it.
        func take(_ connection: Connection) -> Bool {
            state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(connection.channel)) != nil }
        }

        /// Ends every connection no task has taken, and from now on every one received.
        func close() async {
            for connection in closeAndTakeWaiting() { await Self.end(connection) }
        }

        /// A server dropped without ``TestServer/shutdown()`` still ends what it holds.
        deinit {
            let waiting = closeAndTakeWaiting()
            if !waiting.isEmpty {
                Task { for connection in waiting { await Self.end(connection) } }
            }
        }

        private func closeAndTakeWaiting() -> [Connection] {
            state.withLock { state in
                state.isClosed = true
                defer { state.waiting = [:] }
                return Array(state.waiting.values)
            }
        }

        private static func end(_ connection: Connection) async {
            try? await connection.executeThenClose { _, _ in }
        }
    }
}
#endif
