/// A bounded look-ahead over an ``AnimationFrameSource``: at most ``capacity`` decoded frames wait
/// here for their turn, so playback never stalls on a decode and memory stays bounded (capacity
/// frames plus the one on screen), however long the animation.
struct AnimationFrameBuffer<Source: AnimationFrameSource>: Sendable {
    /// Most decoded frames held ahead of the one on screen. Default: 2.
    public let capacity: Int
    /// Where the frames come from.
    public private(set) var source: Source
    /// Decoded frames in play order, with their index in the animation.
    private var queue: [(index: Int, frame: AnimationFrame)] = []
    /// The animation index of the next frame the source will decode.
    private var nextIndex = 0

    /// A buffer that keeps up to `capacity` decoded frames ahead of playback.
    public init(source: Source, capacity: Int = 2) {
        self.source = source
        self.capacity = max(capacity, 1)
    }

    /// The number of frames in the animation.
    public var frameCount: Int { source.frameCount }
    /// How many times the animation plays; 0 means forever.
    public var loopCount: Int { source.loopCount }
    /// Decoded frames waiting (never more than ``capacity``).
    public var bufferedCount: Int { queue.count }

    /// Hands over frame `index` (the next one in play order), decoding it now if it is not ready,
    /// and drops any buffered frame before it.
    public mutating func take(frame index: Int) throws(ImagePipeline.Error) -> AnimationFrame {
        while let first = queue.first {
            queue.removeFirst()
            if first.index == index { return first.frame }
        }
        // Not buffered: decode forward to it (at most one play's worth of frames).
        for _ in 0..<source.frameCount {
            let (decodedIndex, frame) = try decodeNext()
            if decodedIndex == index { return frame }
        }
        throw .decodingFailed(nil, source.format, reason: "frame \(index + 1) is not in the animation")
    }

    /// Decodes ahead until ``capacity`` frames wait. Call it after showing a frame, off the main thread.
    public mutating func fill() throws(ImagePipeline.Error) {
        while queue.count < capacity {
            queue.append(try decodeNext())
        }
    }

    private mutating func decodeNext() throws(ImagePipeline.Error) -> (index: Int, frame: AnimationFrame) {
        let frame = try source.nextFrame()
        let index = nextIndex
        nextIndex = (nextIndex + 1) % source.frameCount
        return (index, frame)
    }
}
