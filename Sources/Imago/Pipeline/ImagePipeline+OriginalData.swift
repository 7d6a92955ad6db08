import Foundation

extension ImagePipeline {
    /// A source's bytes with what the pipeline knows of their freshness: for callers that decode
    /// the bytes themselves and keep what they make (an image proxy's decoded sources, say), so
    /// that what they keep expires, and is dropped, with its source.
    public struct OriginalData: Sendable {
        /// The original bytes.
        public var data: Data
        /// Where they came from: ``ImageResponse/Source/disk`` (a cache) or ``ImageResponse/Source/network``.
        public var source: ImageResponse.Source
        /// When the bytes stop being fresh: the source's caching headers (honoured by default),
        /// the disk entry's expiry, or the disk cache's entry lifetime; `nil` when none applies.
        public var expiresAt: Date?
        /// `false` when the source said `Cache-Control: no-store` (and the pipeline honours caching
        /// headers): nothing made from these bytes should be kept.
        public var isStorable: Bool
        /// Names these exact bytes (CRC-32 and length), as the disk cache compares an original
        /// with the variants made from it: a revalidated, unchanged source has the same fingerprint.
        public var fingerprint: String
    }

    /// The original bytes for `request`, from the disk cache (or a cache layer) or the network,
    /// as ``data(for:)`` loads them (joining a download under way for the same URL, storing
    /// downloaded bytes on disk when their header is a valid image's), with their freshness.
    public func originalData(for request: ImageRequest) async throws(Error) -> OriginalData {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .unsupportedScheme(request.url)
        }
        let loaded = try await loadData(for: request, progress: nil, onWaiting: { _ in })
        let expiresAt: Date?
        switch loaded.expiry {
        case .date(let date):
            expiresAt = date
        case .lifetime(let lifetime):
            let effective = lifetime ?? configuration.diskCache?.configuration.entryLifetime
            expiresAt = effective.map { Date().addingTimeInterval(Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18) }
        }
        return OriginalData(
            data: loaded.data, source: loaded.source, expiresAt: expiresAt, isStorable: !loaded.storage.isForbidden,
            fingerprint: loaded.fingerprint)
    }
}
