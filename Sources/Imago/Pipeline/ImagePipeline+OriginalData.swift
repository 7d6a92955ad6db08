import Foundation

extension ImagePipeline {
    /// A source's original bytes, where they came from and what the pipeline knows of their
    /// freshness, as ``data(for:)`` returns them: callers that decode the bytes themselves and
    /// keep what they make (an image proxy's decoded sources, say) let what they keep expire, and
    /// drop it, with its source.
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

    /// What ``data(for:)`` returns for `loaded`: its expiry made a date (a lifetime counts from
    /// now, or the disk cache's entry lifetime when the source set none).
    func originalData(_ loaded: LoadedData) -> OriginalData {
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
