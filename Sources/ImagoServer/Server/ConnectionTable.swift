#if os(Linux)
import NIOCore

/// The server's open connections against its cap, as a value: each call says what the owner
/// (``ConnectionRegistry``) does, so the policy is tested without sockets or time.
///
/// Under the cap every connection is admitted. At the cap, a new connection takes the place of
/// the one that has waited longest without a request in progress (a half-sent head, a silent
/// new connection or an idle keep-alive one), which is closed: a client holding connections
/// open has to open them faster than fresh clients send their heads to keep anyone out, and
/// its own oldest connections go first. Only when every connection has a request in progress is
/// the new one refused. Refusing at the cap instead (or not accepting, which leaves new clients
/// in the listen backlog) would let a few hundred held connections lock out everyone for a
/// header timeout at a time, again and again.
///
/// Finding the longest-waiting connection scans the table, O(n) in the cap; it runs only when
/// the server is full, and for a cap of a few thousand it is microseconds.
struct ConnectionTable<Key: Hashable & Sendable, Handle: Sendable>: Sendable {
    /// What to do with a new connection.
    enum Admission: Sendable {
        case admit
        /// Admit it and close this one, which has waited longest without a request.
        case admitClosing(Handle)
        /// Close it at once: every connection has a request in progress.
        case refuse
    }

    private struct Entry: Sendable {
        var handle: Handle
        /// Since when it has waited without a request in progress; `nil` while one is.
        var waitingSince: NIODeadline?
    }

    let maximumConnections: Int
    private var entries: [Key: Entry] = [:]

    init(maximumConnections: Int) {
        self.maximumConnections = max(1, maximumConnections)
    }

    /// Connections open now.
    var count: Int { entries.count }

    /// A connection opened at `now` (waiting for its first request).
    mutating func open(_ key: Key, handle: Handle, at now: NIODeadline) -> Admission {
        if entries.count < maximumConnections {
            entries[key] = Entry(handle: handle, waitingSince: now)
            return .admit
        }
        var oldest: (key: Key, since: NIODeadline)?
        for (candidate, entry) in entries {
            guard let since = entry.waitingSince else { continue }
            if let current = oldest, current.since <= since { continue }
            oldest = (candidate, since)
        }
        guard let oldest, let victim = entries.removeValue(forKey: oldest.key) else { return .refuse }
        entries[key] = Entry(handle: handle, waitingSince: now)
        return .admitClosing(victim.handle)
    }

    /// A connection's request began (`nil`) or it began waiting again (since `waitingSince`).
    mutating func update(_ key: Key, waitingSince: NIODeadline?) {
        entries[key]?.waitingSince = waitingSince
    }

    /// A connection closed (or was closed to make room: then it is already gone).
    mutating func close(_ key: Key) {
        entries.removeValue(forKey: key)
    }
}
#endif
