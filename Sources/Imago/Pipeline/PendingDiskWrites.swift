/// The disk writes under way, bounded in count and in the bytes they keep alive. A value, so its
/// rules are tested without timing; the pipeline keeps it behind a `Mutex`.
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

    private var writes: [UInt64: (task: Task<Void, Never>?, bytes: Int)] = [:]
    private(set) var pendingBytes = 0
    private(set) var skippedCount = 0

    var pendingCount: Int { writes.count }
    var tasks: [Task<Void, Never>] { writes.values.compactMap(\.task) }

    /// Reserves room for a write of `bytes`, or refuses it when a bound would be passed.
    mutating func admit(_ id: UInt64, bytes: Int, limits: Limits) -> Admission {
        let bytes = max(bytes, 0)
        guard writes.count < limits.count, bytes <= limits.bytes - pendingBytes else {
            skippedCount += 1
            return .skipped(isFirst: skippedCount == 1)
        }
        writes[id] = (nil, bytes)
        pendingBytes += bytes
        return .admitted
    }

    /// Records the task running an admitted write.
    mutating func start(_ id: UInt64, _ task: Task<Void, Never>) {
        writes[id]?.task = task
    }

    /// An admitted write ended: frees its room.
    mutating func finish(_ id: UInt64) {
        guard let write = writes.removeValue(forKey: id) else { return }
        pendingBytes -= write.bytes
    }
}
