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

    public init(image: PlatformImage, format: ImageFormat, frames: [AnimationFrame] = []) {
        self.image = image
        self.format = format
        self.frames = frames
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
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
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
