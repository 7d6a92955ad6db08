import struct Foundation.Data

/// An extra storage tier between the disk cache and the network: a shared cache on another host,
/// images bundled with the app, a database.
///
/// The pipeline asks its layers in order after the disk cache misses; a hit in a later layer is
/// copied into the disk cache and into every earlier writable layer, so the next read is closer.
public protocol CacheLayer: Sendable {
    /// A short name for logs and statistics.
    var name: String { get }

    /// Whether ``store(_:forKey:)`` keeps anything; read-only layers say `false`.
    var isWritable: Bool { get }

    /// The bytes stored for `key`, or `nil`. Failures are misses: a layer never throws on read.
    func data(forKey key: CacheKey) async -> Data?

    /// Keeps `data` for `key`. Read-only layers do nothing.
    func store(_ data: Data, forKey key: CacheKey) async
}
