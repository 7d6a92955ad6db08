import Imago

/// Entries of one host, for `cache stats` and `cache list`.
struct HostGroup {
    let host: String
    let entries: [DiskCache.EntrySummary]
    var bytes: Int { entries.reduce(0) { $0 + $1.fileSize } }

    /// Groups by host (keys without one under "(no host)"), hosts and keys in order.
    static func group(_ entries: [DiskCache.EntrySummary]) -> [HostGroup] {
        Dictionary(grouping: entries) { $0.host ?? "(no host)" }
            .map { HostGroup(host: $0.key, entries: $0.value.sorted { $0.key.rawValue < $1.key.rawValue }) }
            .sorted { $0.host < $1.host }
    }
}
