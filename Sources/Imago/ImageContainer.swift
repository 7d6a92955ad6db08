/// A decoded image with what the pipeline knows about it: the memory cache stores these.
public struct ImageContainer: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: PlatformImage is NSImage on macOS, which is not marked Sendable although the
    // pipeline never mutates an image after decoding. On Linux `Bitmap` is a Sendable value.

    /// The displayable image: the first frame of an animation.
    public var image: PlatformImage
    /// The encoded format it was decoded from.
    public var format: ImageFormat
    /// The fields most images leave at their defaults, in one shared reference: a container is
    /// copied on every memory-cache hit, and a small one copies in registers.
    private var details: Details

    /// Every frame of an animated image with its display time; empty for a still image.
    public var frames: [AnimationFrame] {
        get { details.frames }
        set { changeDetails { $0.frames = newValue } }
    }
    /// How many times an animation plays: 0 for forever (``AnimationPlayback/loopCount``), as its
    /// file says (GIF's NETSCAPE2.0 extension, WebP's `ANIM` chunk); encoders of animations write
    /// it back. Processing keeps it. Default: 0.
    public var loopCount: Int {
        get { details.loopCount }
        set { changeDetails { $0.loopCount = newValue } }
    }
    /// What a lenient decode repaired to show a damaged source (see ``DecodingPolicy``); empty
    /// when the decode was clean. Processing keeps them: a thumbnail of a damaged image is damaged.
    public var repairs: [ImageContainer.Repair] {
        get { details.repairs }
        set { changeDetails { $0.repairs = newValue } }
    }
    /// The colour profile the source declared (an ICC profile, or one built from its CICP or
    /// `gAMA`/`cHRM` tags); `nil` when it declared none or sRGB itself. Processing keeps it.
    public var colorProfile: ColorProfile? {
        get { details.colorProfile }
        set { changeDetails { $0.colorProfile = newValue } }
    }
    /// What was done with ``colorProfile``: ``ColorProfileHandling/convertToSRGB`` when the pixels
    /// are sRGB (converted through it, or there was none), ``ColorProfileHandling/keep`` when they
    /// are still in its space, and encoders write it back. Default: ``ColorProfileHandling/convertToSRGB``.
    public var colorProfileHandling: ColorProfileHandling {
        get { details.colorProfileHandling }
        set { changeDetails { $0.colorProfileHandling = newValue } }
    }
    /// The size of the source this image was decoded from, after its EXIF orientation: larger
    /// than ``pixelSize`` when the pipeline decoded a reduced copy (shrink-on-load, or an entry
    /// of its tier of decoded originals) for a processor that needs fewer pixels (see
    /// ``ImageProcessing/requiredSourceScale(for:)``). A processor that places things in source
    /// coordinates (a crop, say) scales them by `pixelSize / sourcePixelSize`. Processing keeps
    /// it. Default: ``pixelSize``, when nothing else was recorded.
    public var sourcePixelSize: PixelSize {
        get { details.sourcePixelSize ?? pixelSize }
        set { changeDetails { $0.sourcePixelSize = newValue } }
    }
    /// The HDR gain map read beside the base image (an Ultra HDR or ISO 21496-1 JPEG), at the
    /// same reduction as the base; `nil` when the source has none, or one that could not be used
    /// (then ``repairs`` says why: ``Repair/Kind/ignoredGainMap(_:)``). Resize, thumbnail, crop,
    /// rotate and padding give it the same geometry; blur, sharpen and rounded corners keep it; any
    /// other processor drops it, a custom one too (see ``GainMap``). Default: `nil`.
    public var gainMap: GainMap? {
        get { details.gainMap }
        set { changeDetails { $0.gainMap = newValue } }
    }
    /// The source's EXIF, XMP and IPTC blocks, read when the request asked for them
    /// (`ImageRequest.readsMetadata`); `nil` otherwise or when the source has none. Processing
    /// keeps them. Default: `nil`.
    package var metadata: ImageMetadata? {
        get { details.metadata }
        set { changeDetails { $0.metadata = newValue } }
    }
    #if os(Linux)
    /// A conversion to sRGB the decoder left for after the thumbnail (see
    /// `DecodingContext.defersColorConversion`); the pipeline runs it before anything else sees
    /// the pixels (`completeColorConversion()`).
    var pendingColorConversion: ColorTransform? {
        get { details.pendingColorConversion }
        set { changeDetails { $0.pendingColorConversion = newValue } }
    }
    #endif

    /// A container of `image`, decoded from `format`, with its animation `frames` (none for a still)
    /// and what a lenient decode repaired (none for a clean decode).
    public init(image: PlatformImage, format: ImageFormat, frames: [AnimationFrame] = [], repairs: [ImageContainer.Repair] = []) {
        self.image = image
        self.format = format
        details = frames.isEmpty && repairs.isEmpty ? Details.none : Details(frames: frames, repairs: repairs)
    }

    /// Changes the details on a reference of this container's own (copied first when shared).
    private mutating func changeDetails(_ body: (Details) -> Void) {
        if !isKnownUniquelyReferenced(&details) { details = details.copy() }
        body(details)
    }

    /// The boxed fields. Changed only through ``changeDetails(_:)``, on an instance no other
    /// container holds, so sharing it between threads is safe.
    private final class Details: @unchecked Sendable {
        var frames: [AnimationFrame]
        var repairs: [ImageContainer.Repair]
        var loopCount = 0
        var colorProfile: ColorProfile?
        var colorProfileHandling = ColorProfileHandling.convertToSRGB
        var sourcePixelSize: PixelSize?
        var gainMap: GainMap?
        var metadata: ImageMetadata?
        #if os(Linux)
        var pendingColorConversion: ColorTransform?
        #endif

        /// The details of a still image with nothing repaired, no profile, nothing pending,
        /// shared by every such container until one changes.
        static let none = Details(frames: [], repairs: [])

        init(frames: [AnimationFrame], repairs: [ImageContainer.Repair]) {
            self.frames = frames
            self.repairs = repairs
        }

        func copy() -> Details {
            let copy = Details(frames: frames, repairs: repairs)
            copy.loopCount = loopCount
            copy.colorProfile = colorProfile
            copy.colorProfileHandling = colorProfileHandling
            copy.sourcePixelSize = sourcePixelSize
            copy.gainMap = gainMap
            copy.metadata = metadata
            #if os(Linux)
            copy.pendingColorConversion = pendingColorConversion
            #endif
            return copy
        }
    }

    /// Number of frames: 1 for a still image.
    public var frameCount: Int { max(frames.count, 1) }

    /// Whether this is an animation of more than one frame.
    public var isAnimated: Bool { frames.count > 1 }

    /// `JPEG 640x480` or `GIF 64x48, 12 frames`.
    public var description: String {
        "\(format) \(pixelSize)" + (isAnimated ? ", \(frames.count) frames" : "")
    }
}

/// One frame of an animation.
public struct AnimationFrame: @unchecked Sendable, CustomStringConvertible {
    /// The frame as it should be shown: composited over the frames before it, full canvas size.
    public var image: PlatformImage
    /// How long the frame stays on screen.
    public var duration: Duration

    /// A frame showing `image` for `duration`.
    public init(image: PlatformImage, duration: Duration) {
        self.image = image
        self.duration = duration
    }

    /// `frame 640x480 for 100 ms`.
    public var description: String {
        "frame \(ImageContainer(image: image, format: .png).pixelSize) for \(duration.formattedMilliseconds)"
    }
}

/// Width and height in pixels.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Pixels across.
    public var width: Int
    /// Pixels down.
    public var height: Int

    /// A size of `width` x `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `256x171`.
    public var description: String { "\(width)x\(height)" }
}

extension ImageContainer {
    /// The profile of the pixels themselves: ``colorProfile`` when it was kept, `nil` for sRGB.
    public var pixelColorProfile: ColorProfile? {
        colorProfileHandling == .keep ? colorProfile : nil
    }

    /// Whether the pixels' stored values follow sRGB's transfer curve: they are sRGB, or kept in a
    /// profile with the same curve (Display P3). Linear light is made by undoing that curve, so
    /// it is made only when this holds.
    package var pixelsHaveSRGBTransfer: Bool {
        pixelColorProfile.map { ICCProfileReader.hasSRGBTransfer($0.data) } ?? true
    }
}

extension ImageContainer {
    /// Bytes of decoded pixels held, a gain map's and the source's metadata too: the memory cache's cost.
    public var cost: Int {
        let size = pixelSize
        return size.width * size.height * Bitmap.bytesPerPixel * max(frames.count, 1) + (gainMap?.bitmap.byteCount ?? 0)
            + (metadata?.byteCount ?? 0)
    }
}

extension ImageContainer {
    /// Whether the image has no alpha channel, so JPEG loses nothing: read from the pixels, never
    /// from the source format (rounded corners on a JPEG are transparent).
    var isOpaque: Bool {
        #if os(Linux)
        image.pixels.alphaMode == .opaque
        #else
        image.hasNoAlphaChannel
        #endif
    }
}
