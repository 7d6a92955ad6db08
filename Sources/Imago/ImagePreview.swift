/// A coarse picture of an image still downloading: the scans of a progressive JPEG that have
/// arrived, decoded and processed as the request asks (a thumbnail request gets a thumbnail), at the
/// final image's size. Previews are never stored in a cache; see
/// ``ImagePipeline/Configuration/decodesPreviews``.
public struct ImagePreview: Sendable, CustomStringConvertible {
    /// The preview.
    public var container: ImageContainer
    /// The progressive scans it shows (the first scan of most files holds the DC coefficients
    /// alone: an eighth of the detail); each later preview shows more.
    public var scanCount: Int
    /// The encoded bytes it was decoded from (the image's first bytes).
    public var byteCount: Int

    /// A preview of `container`, showing `scanCount` scans decoded from `byteCount` bytes.
    public init(container: ImageContainer, scanCount: Int, byteCount: Int) {
        self.container = container
        self.scanCount = scanCount
        self.byteCount = byteCount
    }

    /// The displayable preview.
    public var image: PlatformImage { container.image }

    /// `preview of JPEG 640x480: 2 scans from 48.2 KB`.
    public var description: String {
        "preview of \(container): \(scanCount) scan\(scanCount == 1 ? "" : "s") from \(ByteCountDescription.format(byteCount))"
    }
}
