/// Frames of an animation decoded one after another, on demand.
///
/// Sequential because the formats are: a GIF frame is drawn over the canvas the previous frames
/// left, and libwebp's `WebPAnimDecoder` and libavif's sequence decoder also go forward only. After
/// the last frame, the next call starts over with the first. An ``AnimationFrameBuffer`` keeps a
/// few decoded frames ahead of playback, so a long animation never sits decoded in memory whole.
protocol AnimationFrameSource: Sendable {
    /// The encoded format, for error messages.
    var format: ImageFormat { get }
    /// Frames in one play.
    var frameCount: Int { get }
    /// Plays before stopping; 0 for forever (``AnimationPlayback/loopCount``).
    var loopCount: Int { get }
    /// Decodes the next frame (the first again after the last), its duration floored as browsers
    /// do (``FrameTiming``).
    mutating func nextFrame() throws(ImagePipeline.Error) -> AnimationFrame
}
