#if os(Linux)
import CImagoCodecs
#endif
import Foundation

extension ImageHeader {
    /// The most frames ``frameCount(_:)`` reports (100,000: far past any frame limit, the
    /// pipeline's ``DecodingLimits/maximumFrameCount`` included), and a bound on its walk through
    /// a GIF's hostile blocks.
    static let maximumCountedFrames = 100_000

    /// The frames an image declares, counted from its container without decoding a pixel: GIF's
    /// image descriptors (each frame's LZW data skipped by its sub-block lengths), WebP's `ANMF`
    /// chunks (Linux), an AVIF sequence's samples; 1 for a still image. `nil` when the format is
    /// not one of these or the container is malformed before its first frame (the decoder then
    /// says what is wrong). A count stops where the bytes do: a GIF cut short counts the frames
    /// that are whole (or its first frame, however short). At most 100,000.
    ///
    /// The pipeline checks a request's animation limits against it before it decodes
    /// (``ImageRequest/maximumAnimationFrames``, ``ImageRequest/maximumAnimationFramePixels``).
    public static func frameCount(_ data: Data) -> Int? {
        switch ImageFormat.sniff(data) {
        case .gif:
            return gifFrameCount([UInt8](data))
        case .webp:
            #if os(Linux)
            let count = data.withUnsafeBytes { raw -> Int in
                guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return 0 }
                return imago_webp_count_frames(base, raw.count)
            }
            return min(max(count, 1), maximumCountedFrames)
            #else
            return nil
            #endif
        case .avif, .heif:
            guard let header = try? ISOBMFFHeader.parse(data) else { return nil }
            return min(max(header.frameCount ?? 1, 1), maximumCountedFrames)
        case .png, .jpeg:
            return 1
        default:
            return nil
        }
    }

    /// GIF frames: every image descriptor before the trailer or the end of the bytes.
    private static func gifFrameCount(_ bytes: [UInt8]) -> Int? {
        var reader = GIFReader(bytes: bytes, url: nil, policy: .lenient)
        guard (try? reader.readScreen()) != nil else { return nil }
        var count = 0
        while count < maximumCountedFrames {
            guard let block = try? reader.readBlock() else { break }
            switch block {
            case .image:
                count += 1
                // A later frame cut off by the end is dropped by the decoder; a first one shows.
                guard (try? reader.skipImage(frameIndex: count - 1)) == true else { return max(count - 1, 1) }
            case .graphicControl:
                continue
            case .end:
                return count == 0 ? nil : count
            }
        }
        return count == 0 ? nil : count
    }
}
