import Foundation

extension ImagePipeline {
    /// A source's original bytes, where they came from and what the pipeline knows of their
    /// freshness, as ``data(for:)`` returns them: a caller that decodes the bytes itself and keeps
    /// what it makes lets that expire, and drops it, with its source.
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
        /// Names these exact bytes (CRC-32C and length), as the disk cache compares an original
        /// with the variants made from it: a revalidated, unchanged source has the same fingerprint.
        public var fingerprint: String
        /// The source's `Last-Modified` date, when it sent one (``ImageResponse/lastModified``).
        public var lastModified: Date?
    }

    /// What ``data(for:)`` returns for `loaded`: its expiry made a date (a lifetime counts from
    /// now, or the disk cache's entry lifetime when the source set none).
    func originalData(_ loaded: LoadedData) -> OriginalData {
        OriginalData(
            data: loaded.data, source: loaded.source, expiresAt: expiresAt(of: loaded), isStorable: !loaded.storage.isForbidden,
            fingerprint: loaded.fingerprint, lastModified: loaded.lastModified)
    }
}
