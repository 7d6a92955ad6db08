/// A decoded image with what the pipeline knows about it: the memory cache stores these.
public struct ImageContainer: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: PlatformImage is NSImage on macOS, which is not marked Sendable although the
    // pipeline never mutates an image after decoding. On Linux `Bitmap` is a Sendable value.

    /// The displayable image: the first frame of an animation.
    public var image: PlatformImage
    /// The encoded format it was decoded from.
    public var format: ImageFormat
    /// Every frame of an animated image with its display time; empty for a still image.
    public var frames: [AnimationFrame]
    /// What a lenient decode repaired to show a damaged source (see ``DecodingPolicy``); empty
    /// when the decode was clean. Processing keeps them: a thumbnail of a damaged image is damaged.
    public var repairs: [ImageRepair]
    /// The colour profile the source declared (an ICC profile, or one built from its CICP or
    /// `gAMA`/`cHRM` tags); `nil` when it declared none or sRGB itself. Processing keeps it.
    public var colorProfile: ColorProfile?
    /// What was done with ``colorProfile``: ``ColorProfileHandling/convertToSRGB`` when the pixels
    /// are sRGB (converted through it, or there was none), ``ColorProfileHandling/keep`` when they
    /// are still in its space, and encoders write it back.
    public var colorProfileHandling: ColorProfileHandling = .convertToSRGB
    #if os(Linux)
    /// A conversion to sRGB the decoder left for after the thumbnail (see
    /// `DecodingContext.defersColorConversion`); the pipeline runs it before anything else sees
    /// the pixels (`completeColorConversion()`).
    var pendingColorConversion: ColorTransform?
    #endif

    /// A container of `image`, decoded from `format`, with its animation `frames` (none for a still)
    /// and what a lenient decode repaired (none for a clean decode).
    public init(image: PlatformImage, format: ImageFormat, frames: [AnimationFrame] = [], repairs: [ImageRepair] = []) {
        self.image = image
        self.format = format
        self.frames = frames
        self.repairs = repairs
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
}

extension ImageContainer {
    /// Bytes of decoded pixels held: the memory cache's cost.
    public var cost: Int {
        let size = pixelSize
        return size.width * size.height * Bitmap.bytesPerPixel * max(frames.count, 1)
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
