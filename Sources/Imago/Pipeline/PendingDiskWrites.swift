/// The disk writes under way, bounded in count and in the bytes they keep alive, and the removals
/// that overtake them. A value, so its rules are tested without timing; the pipeline keeps it
/// behind a lock (`Locked`).
///
/// A removal of a key wins over every write of that key already admitted: a write that has not
/// begun never begins, and one that is writing removes what it wrote when it ends. So bytes that
/// failed to decode never stay on disk, however the decode and their write interleave.
struct PendingDiskWrites {
    struct Limits: Equatable {
        var count: Int
        var bytes: Int
    }

    enum Admission: Equatable {
        case admitted
        /// Over a bound: the write does not happen. `isFirst` for the first skip ever.
        case skipped(isFirst: Bool)
    }

    /// Where an admitted write is.
    enum Phase: Equatable {
        /// Admitted, its task not yet writing.
        case waiting
        /// Its task is writing.
        case writing
        /// A removal of its key came before it began: it never writes.
        case revoked
        /// A removal of its key came while it wrote: it removes what it wrote when it ends.
        case removesWhenDone
    }

    private struct Write {
        var task: Task<Void, Never>?
        var bytes: Int
        /// The entry it writes; `nil` for a write no removal can overtake.
        var key: CacheKey?
        var phase: Phase
    }

    private var writes: [UInt64: Write] = [:]
    private(set) var pendingBytes = 0
    private(set) var skippedCount = 0

    var pendingCount: Int { writes.count }
    var tasks: [Task<Void, Never>] { writes.values.compactMap(\.task) }

    /// Where the admitted write `id` is; `nil` once it has ended (or was never admitted).
    func phase(of id: UInt64) -> Phase? { writes[id]?.phase }

    /// Reserves room for a write of `bytes` to the entry `key`, or refuses it when a bound would
    /// be passed.
    mutating func admit(_ id: UInt64, key: CacheKey? = nil, bytes: Int, limits: Limits) -> Admission {
        let bytes = max(bytes, 0)
        guard writes.count < limits.count, bytes <= limits.bytes - pendingBytes else {
            skippedCount += 1
            return .skipped(isFirst: skippedCount == 1)
        }
        writes[id] = Write(task: nil, bytes: bytes, key: key, phase: .waiting)
        pendingBytes += bytes
        return .admitted
    }

    /// Records the task running an admitted write.
    mutating func start(_ id: UInt64, _ task: Task<Void, Never>) {
        writes[id]?.task = task
    }

    /// The write's task is about to write: `false` when a removal revoked it first (it writes
    /// nothing, and still calls ``finish(_:)``).
    mutating func begin(_ id: UInt64) -> Bool {
        guard let write = writes[id], write.phase == .waiting else { return false }
        writes[id]?.phase = .writing
        return true
    }

    /// A removal of `key`: writes of it that have not begun are revoked; one that is writing
    /// removes what it wrote when it ends. The caller removes what is on disk now.
    mutating func revoke(_ key: CacheKey) {
        for (id, write) in writes where write.key == key { revoke(id: id) }
    }

    /// A removal of everything: as ``revoke(_:)`` for every write.
    mutating func revokeAll() {
        for id in writes.keys { revoke(id: id) }
    }

    private mutating func revoke(id: UInt64) {
        switch writes[id]?.phase {
        case .waiting: writes[id]?.phase = .revoked
        case .writing: writes[id]?.phase = .removesWhenDone
        case .revoked, .removesWhenDone, nil: break
        }
    }

    /// An admitted write ended: frees its room. Returns the key whose entry it must remove, when a
    /// removal came while it wrote.
    @discardableResult
    mutating func finish(_ id: UInt64) -> CacheKey? {
        guard let write = writes.removeValue(forKey: id) else { return nil }
        pendingBytes -= write.bytes
        return write.phase == .removesWhenDone ? write.key : nil
    }
}
