import Foundation

/// How a download's bytes, and every variant made from them, may be kept on disk. Decided once per
/// response, by ``DownloadStateMachine``, from the response's headers and
/// ``ImagePipeline/Configuration/honoursHTTPCacheHeaders``; obeyed by every write (``DiskWriter``).
struct DiskStorage: Equatable, Sendable {
    /// `Cache-Control: no-store`, honoured: nothing made from the bytes is written, and a variant
    /// stored earlier is removed.
    var isForbidden: Bool
    /// Kept with the entry: the validators that revalidate it later.
    var metadata: [String: String]
    /// How long the entry stays fresh; `nil`: the disk cache's default lifetime.
    var lifetime: Duration?

    /// Bytes that came with nothing to obey (from a cache layer, or with HTTP caching ignored):
    /// stored with the disk cache's default lifetime.
    static let unrestricted = DiskStorage(isForbidden: false, metadata: [:], lifetime: nil)

    init(isForbidden: Bool, metadata: [String: String], lifetime: Duration?) {
        self.isForbidden = isForbidden
        self.metadata = metadata
        self.lifetime = lifetime
    }

    /// What a response's caching headers allow when they are honoured; ``unrestricted`` when not.
    init(headers: HTTPCacheHeaders, honoursHTTPCacheHeaders: Bool) {
        guard honoursHTTPCacheHeaders else {
            self = .unrestricted
            return
        }
        self.init(isForbidden: headers.noStore, metadata: headers.metadata, lifetime: headers.lifetime)
    }
}
