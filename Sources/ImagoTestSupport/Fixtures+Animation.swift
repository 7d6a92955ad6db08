import Foundation
import Imago

extension Fixtures {
    /// The frames of a test animation: `count` different sample pictures of `width` x `height`
    /// (seeds `seed`, `seed + 1`…), so that a frame out of place or dropped shows.
    public static func animationFrames(width: Int, height: Int, count: Int, seed: Int = 10, transparent: Bool = false) -> [Bitmap] {
        (0..<count).map { picture(width: width, height: height, seed: seed + $0, transparent: transparent) }
    }

    /// An animated GIF of ``animationFrames(width:height:count:seed:transparent:)``, one frame per
    /// entry of `durations` (whole hundredths of a second play as written), playing `loopCount`
    /// times (0: forever); written by Imago's own GIF encoder (a fixed palette, dithered).
    public static func animatedGIF(
        width: Int, height: Int, durations: [Duration], loopCount: Int = 0, transparent: Bool = false
    ) throws -> Data {
        let frames = animationFrames(width: width, height: height, count: durations.count, transparent: transparent)
        return try GIFEncoder().encodeAnimation(Array(zip(frames, durations)).map { ($0.0, $0.1) }, loopCount: loopCount)
    }

    #if os(Linux)
    /// An animated WebP of the same frames as ``animatedGIF(width:height:durations:loopCount:transparent:)``,
    /// lossless (every pixel kept), written by libwebpmux.
    public static func animatedWebP(
        width: Int, height: Int, durations: [Duration], loopCount: Int = 0, transparent: Bool = false
    ) throws -> Data {
        let frames = animationFrames(width: width, height: height, count: durations.count, transparent: transparent)
        return try WebPEncoder(isLossless: true).encodeAnimation(
            Array(zip(frames, durations)).map { ($0.0, $0.1) }, loopCount: loopCount)
    }
    #endif
}
