#if os(Linux)
import Imago

extension ProcessingOptionsParser {
    /// imgproxy's animation limits, both security options (403 unless the server allows them):
    /// `maf:N` / `max_animation_frames:N`, a whole number from 1 (the first N frames of an
    /// animation are processed, 1 makes it a still), and `mafr:MP` /
    /// `max_animation_frame_resolution:MP`, megapixels from 0 (each frame's most pixels when more
    /// than one frame is processed; 0: none, the whole animation counts against
    /// `max_src_resolution`).
    mutating func applyAnimationLimit(_ name: Substring, _ arguments: [Substring]) throws(ProcessingPathError) {
        try expect(arguments, atMost: 1, for: name)
        switch name {
        case "maf", "max_animation_frames":
            options.maximumAnimationFrames = try Self.integer(arguments[0], in: 1...999_999_999, for: name)
        default:
            let megapixels = try Self.decimal(arguments[0], in: 0...100_000, for: name)
            options.maximumAnimationFramePixels = Int((megapixels * 1_000_000).rounded())
        }
    }
}
#endif
