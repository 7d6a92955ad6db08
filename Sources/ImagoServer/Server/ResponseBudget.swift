#if os(Linux)
/// The bytes of response bodies on their way to clients, against a limit, as a value
/// (``ResponseBytesInFlight`` performs it). A body is named by its storage: several responses
/// that send the same bytes (the response cache's copy of one image, read by many clients)
/// hold one entry, counted once, for as long as any of them is in flight.
struct ResponseBudget: Sendable {
    /// Where a body's bytes are, and how many: the same storage sent by several responses.
    struct Storage: Hashable, Sendable {
        var address: UInt
        var count: Int

        init(address: UInt, count: Int) {
            self.address = address
            self.count = count
        }
    }

    let limit: Int
    /// Bytes held now, each body counted once.
    private(set) var bytesInFlight = 0
    /// Bodies that are shared: their size and how many responses hold them.
    private var shared: [Storage: (bytes: Int, holders: Int)] = [:]

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// A response of `bytes` (stored at `storage`, when it can be shared) asks to go out;
    /// `false` refuses it. A body already in flight is always admitted (it costs nothing more),
    /// and so is any body when nothing is in flight (a body over the limit goes out alone).
    mutating func acquire(bytes: Int, storage: Storage?) -> Bool {
        let bytes = max(0, bytes)
        if let storage, let entry = shared[storage] {
            shared[storage] = (entry.bytes, entry.holders + 1)
            return true
        }
        guard bytesInFlight == 0 || bytes <= limit - bytesInFlight else { return false }
        bytesInFlight += bytes
        if let storage { shared[storage] = (bytes, 1) }
        return true
    }

    /// A response admitted by ``acquire(bytes:storage:)`` with the same arguments is done.
    mutating func release(bytes: Int, storage: Storage?) {
        var freed = max(0, bytes)
        if let storage, let entry = shared[storage] {
            if entry.holders > 1 {
                shared[storage] = (entry.bytes, entry.holders - 1)
                return
            }
            shared[storage] = nil
            freed = entry.bytes
        }
        bytesInFlight = max(0, bytesInFlight - freed)
    }
}
#endif
