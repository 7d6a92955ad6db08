/// The frames of an already decoded ``ImageContainer`` as an ``AnimationFrameSource``, for formats
/// without a sequential decoder yet (and ImageIO's decodings on Apple platforms). Holds every frame:
/// prefer a sequential source such as ``GIFFrameSource`` for long animations.
struct ContainerFrameSource: AnimationFrameSource {
    private let frames: [AnimationFrame]
    private var next = 0
    /// How many times the animation plays; 0 means forever.
    public let loopCount: Int
    private let containerFormat: ImageFormat

    /// `loopCount`: plays before stopping, 0 for forever (the default: what most animations ask).
    public init(_ container: ImageContainer, loopCount: Int = 0) {
        frames = container.frames.isEmpty
            ? [AnimationFrame(image: container.image, duration: FrameTiming.replacementDuration)]
            : container.frames
        self.loopCount = loopCount
        containerFormat = container.format
    }

    /// The number of frames in the container.
    public var frameCount: Int { frames.count }
    /// The container's format.
    public var format: ImageFormat { containerFormat }

    /// The next frame, starting again after the last.
    public mutating func nextFrame() throws(ImagePipeline.Error) -> AnimationFrame {
        defer { next = (next + 1) % frames.count }
        var frame = frames[next]
        frame.duration = FrameTiming.displayDuration(frame.duration)
        return frame
    }
}
