import Foundation

/// A loaded image and where it came from.
public struct ImageResponse: Sendable, CustomStringConvertible {
    /// Where a response was served from.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The memory cache: no I/O, no decoding.
        case memory
        /// The disk cache (or another local cache layer, or a copy revalidated by a 304): decoded
        /// from stored bytes.
        case disk
        /// Downloaded.
        case network
    }

    /// The decoded (and processed) image with its format and frames.
    public var container: ImageContainer
    /// Where it came from.
    public var source: Source
    /// Size of the encoded bytes the image was decoded from; `nil` for a memory hit.
    public var encodedByteCount: Int?
    /// How long each stage took and how many download attempts were made. Coalesced callers
    /// share the stages of the work they joined; ``ImageResponse/Timing/total`` is each caller's own.
    public var timing: ImageResponse.Timing
    /// Bytes of the image kept from an earlier download that stopped, and not downloaded again
    /// (see ``ImagePipeline/Configuration/resumableData``); 0 when the download started from zero
    /// or nothing was downloaded.
    public var resumedByteCount: Int
    /// When the source the image was made from stops being fresh (its caching headers, honoured
    /// by default, or the disk entry's expiry, or the disk cache's entry lifetime), on
    /// ``ImagePipeline/Configuration/now``: whoever keeps what they make of the image (an
    /// encoded response, say) keeps it no longer. `nil` when none applies or is known (a memory
    /// hit of a processed image).
    public var expiresAt: Date?
    /// `false` when the source said `Cache-Control: no-store` (and the pipeline honours caching
    /// headers): nothing made from the image should be kept. Default: `true`.
    public var isStorable: Bool
    /// The source's `Last-Modified` date (an HTTP response header, kept with the disk entry;
    /// a loader of your own may send one too): what an image proxy passes on to validate what
    /// it makes. `nil` when the source sent none, or when it is not known (a memory hit of a
    /// processed image, a processed variant read from disk).
    public var lastModified: Date?

    /// A response carrying `container`, loaded from `source`.
    public init(
        container: ImageContainer, source: Source, encodedByteCount: Int? = nil, timing: ImageResponse.Timing = ImageResponse.Timing(),
        resumedByteCount: Int = 0, expiresAt: Date? = nil, isStorable: Bool = true, lastModified: Date? = nil
    ) {
        self.container = container
        self.source = source
        self.encodedByteCount = encodedByteCount
        self.timing = timing
        self.resumedByteCount = resumedByteCount
        self.expiresAt = expiresAt
        self.isStorable = isStorable
        self.lastModified = lastModified
    }

    /// The displayable image.
    public var image: PlatformImage { container.image }
    /// The encoded format it was decoded from.
    public var format: ImageFormat { container.format }
    /// What a lenient decode repaired to show a damaged source; empty for a clean image.
    public var repairs: [ImageContainer.Repair] { container.repairs }

    /// `JPEG 256x171 from network (48.2 KB) in 12.3 ms`.
    public var description: String {
        let bytes = encodedByteCount.map { " (\(ByteCountDescription.format($0)))" } ?? ""
        return "\(container) from \(source.rawValue)\(bytes) in \(timing.total.formattedMilliseconds)"
    }
}
