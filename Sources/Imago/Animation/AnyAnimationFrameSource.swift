import Foundation

/// Any ``AnimationFrameSource``, for code that plays whatever the bytes turn out to be.
struct AnyAnimationFrameSource: AnimationFrameSource {
    private var base: any AnimationFrameSource

    /// Wraps `base`.
    public init(_ base: some AnimationFrameSource) {
        self.base = base
    }

    /// The best source for an image: GIF frames decoded one at a time from `data` (bounded
    /// memory), otherwise the frames `container` already holds.
    /// - Throws: what opening the GIF throws (a malformed file, ``DecodingLimits``).
    public init(
        container: ImageContainer, data: Data? = nil, limits: DecodingLimits = DecodingLimits(),
        policy: DecodingPolicy = .lenient, loopCount: Int = 0
    ) throws(ImagePipeline.Error) {
        if let data, container.format == .gif, ImageFormat.sniff(data) == .gif {
            base = try GIFFrameSource(data: data, limits: limits, policy: policy)
        } else {
            base = ContainerFrameSource(container, loopCount: loopCount)
        }
    }

    /// The wrapped source's format.
    public var format: ImageFormat { base.format }
    /// The wrapped source's frame count.
    public var frameCount: Int { base.frameCount }
    /// The wrapped source's loop count (0: forever).
    public var loopCount: Int { base.loopCount }

    /// The wrapped source's next frame.
    public mutating func nextFrame() throws(ImagePipeline.Error) -> AnimationFrame {
        try base.nextFrame()
    }
}
