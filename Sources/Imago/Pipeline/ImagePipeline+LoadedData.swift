import Foundation

extension ImagePipeline {
    /// Bytes from a cache or the network, shared by every image made from them.
    ///
    /// Downloaded bytes are stored on disk by the data stage that made this value, once, before
    /// any decode (``DiskWriter/storeOriginal(_:for:)``); whoever then fails to decode them removes
    /// them again (``DiskWriter/removeOriginal(_:for:)``).
    final class LoadedData: Sendable {
        let data: Data
        let source: ImageResponse.Source
        /// How the bytes, and what is made from them, may be kept on disk.
        let storage: DiskStorage
        let timing: ImageResponse.Timing
        /// When the original's disk entry stops being fresh (stored, read or refreshed): processed
        /// variants made from these bytes are stored to expire with it.
        let expiry: DiskCache.Expiry
        /// Bytes kept from an interrupted download that this one resumed (0: it started from zero).
        let resumedByteCount: Int
        /// The source's `Last-Modified` (a loader's response header, or the one kept with a disk
        /// entry); `nil` when it sent none or none could be read.
        let lastModified: Date?

        init(
            data: Data, source: ImageResponse.Source, storage: DiskStorage = .unrestricted, timing: ImageResponse.Timing,
            expiry: DiskCache.Expiry = .lifetime(nil), resumedByteCount: Int = 0, lastModified: Date? = nil
        ) {
            self.data = data
            self.source = source
            self.storage = storage
            self.timing = timing
            self.expiry = expiry
            self.resumedByteCount = resumedByteCount
            self.lastModified = lastModified
            fingerprint = String(Checksum.crc32c(data), radix: 16) + "-" + String(data.count)
        }

        /// Names these exact bytes (CRC-32C and length): a processed variant on disk records the
        /// fingerprint of its original, so it is served only while the original is unchanged.
        /// Computed once: the tier, the disk writer and revalidation each read it. CRC-32C, which
        /// the CPU computes (see ``Checksum``), costs about a tenth of zlib's CRC-32 on every
        /// download; a variant stamped with an older CRC-32 fingerprint is a miss, made again.
        let fingerprint: String
    }
}
