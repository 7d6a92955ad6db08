#if os(Linux)
/// The bookkeeping behind ``HTTPClientPool``: which client serves which key (`https|host|address`
/// or `http|address`), who is using it (leases), which ones to keep (the ``capacity`` most
/// recently used) and which to shut down, and when. A value whose methods return the clients to
/// shut down, so every rule is tested without a network or a clock.
///
/// The rules:
/// - At most ``capacity`` clients are kept for reuse. Making one more evicts the least recently
///   used: shut down at once when nobody uses it, else retired (no new leases) and shut down when
///   its last lease ends. So idle clients never exceed ``capacity``, and retired ones never exceed
///   the downloads running.
/// - After ``close()`` nothing is leased; every client, in use or not, is handed out to be shut
///   down exactly once (a release afterwards returns nothing).
struct ClientLeases<Client> {
    /// A claim on one client, returned with it and handed back to ``release(_:)``.
    struct Lease: Hashable, Sendable {
        fileprivate var id: UInt64
    }

    private struct Entry {
        var key: String
        var client: Client
        var leases: Int
        var lastUse: UInt64
        var isRetired: Bool
    }

    /// The most clients kept for reuse (at least 1).
    let capacity: Int
    /// Clients by lease id: those kept and those retired but still in use.
    private var entries: [UInt64: Entry] = [:]
    /// The kept (not retired) client for each key.
    private var keys: [String: UInt64] = [:]
    private var nextID: UInt64 = 0
    private var clock: UInt64 = 0
    private(set) var isClosed = false

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Clients kept for reuse.
    var keptCount: Int { keys.count }
    /// Clients that exist (kept, and retired but still leased): none has been shut down yet.
    var liveCount: Int { entries.count }
    /// Leases not yet released.
    var leaseCount: Int { entries.values.reduce(0) { $0 + $1.leases } }

    /// The first of `keys` that has a kept client, if any: of several equally good keys (a host's
    /// checked addresses), the one that reuses a client and its open connections.
    func keptKey(among candidates: [String]) -> String? {
        candidates.first { keys[$0] != nil }
    }

    /// A lease on the client for `key`, made by `make` when there is none; `nil` once closed.
    /// `evicted` are clients to shut down now (idle ones pushed out of the capacity).
    mutating func lease(key: String, make: () -> Client) -> (lease: Lease, client: Client, evicted: [Client])? {
        guard !isClosed else { return nil }
        clock &+= 1
        if let id = keys[key], var entry = entries[id] {
            entry.leases += 1
            entry.lastUse = clock
            entries[id] = entry
            return (Lease(id: id), entry.client, [])
        }
        var evicted: [Client] = []
        while keys.count >= capacity, let oldest = keys.values.min(by: { (entries[$0]?.lastUse ?? 0) < (entries[$1]?.lastUse ?? 0) }) {
            if let client = retire(oldest) { evicted.append(client) }
        }
        nextID &+= 1
        let client = make()
        entries[nextID] = Entry(key: key, client: client, leases: 1, lastUse: clock, isRetired: false)
        keys[key] = nextID
        return (Lease(id: nextID), client, evicted)
    }

    /// Ends `lease`; returns its client when that was the last lease on a retired client, to be
    /// shut down now.
    mutating func release(_ lease: Lease) -> Client? {
        guard var entry = entries[lease.id], entry.leases > 0 else { return nil }
        entry.leases -= 1
        guard entry.isRetired, entry.leases == 0 else {
            entries[lease.id] = entry
            return nil
        }
        entries[lease.id] = nil
        return entry.client
    }

    /// Leases nothing from now on; returns every client there is, to be shut down now.
    mutating func close() -> [Client] {
        isClosed = true
        defer {
            entries = [:]
            keys = [:]
        }
        return entries.values.map(\.client)
    }

    /// Stops leasing the client `id`: returns it when idle (to shut down now), else marks it to be
    /// shut down when its last lease ends.
    private mutating func retire(_ id: UInt64) -> Client? {
        guard var entry = entries[id] else {
            keys = keys.filter { $0.value != id }
            return nil
        }
        keys[entry.key] = nil
        guard entry.leases > 0 else {
            entries[id] = nil
            return entry.client
        }
        entry.isRetired = true
        entries[id] = entry
        return nil
    }
}
#endif
