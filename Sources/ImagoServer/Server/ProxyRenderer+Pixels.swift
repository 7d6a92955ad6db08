#if os(Linux)
import Imago

extension ProxyRenderer {
    /// `bitmap` mirrored left to right (`horizontally`) and/or top to bottom (`vertically`):
    /// imgproxy's `flip`, applied after the rotation. The mirrorings are EXIF's: 2 across, 4 down,
    /// 3 (a half turn) both.
    static func flipped(_ bitmap: Bitmap, horizontally: Bool, vertically: Bool) -> Bitmap {
        let orientation: EXIFOrientation =
            switch (horizontally, vertically) {
            case (true, true): .down
            case (true, false): .upMirrored
            case (false, true): .downMirrored
            case (false, false): .up
            }
        return orientation.apply(to: bitmap)
    }

    /// `bitmap` in blocks of `size` x `size` pixels from its top-left corner, each the mean of its
    /// pixels: imgproxy's `pixelate`, applied with the filters. As imgproxy (libvips), blocks at
    /// the right and bottom edges are completed with the image mirrored, so an edge block is the
    /// mean of a whole block; the size is bounded by the longer side, as imgproxy bounds it.
    static func pixelated(_ bitmap: Bitmap, size: Int) -> Bitmap {
        let block = min(size, max(bitmap.width, bitmap.height))
        guard block > 1, bitmap.width > 0, bitmap.height > 0 else { return bitmap }
        let (width, height) = (bitmap.width, bitmap.height)
        var pixels = bitmap.pixels
        pixels.withUnsafeMutableBufferPointer { bytes in
            for top in stride(from: 0, to: height, by: block) {
                for left in stride(from: 0, to: width, by: block) {
                    var sums = (0, 0, 0, 0)
                    for row in top..<(top + block) {
                        let y = Self.mirrored(row, within: height)
                        for column in left..<(left + block) {
                            let index = (y * width + Self.mirrored(column, within: width)) * 4
                            sums.0 += Int(bytes[index])
                            sums.1 += Int(bytes[index + 1])
                            sums.2 += Int(bytes[index + 2])
                            sums.3 += Int(bytes[index + 3])
                        }
                    }
                    let count = block * block
                    let mean = [sums.0, sums.1, sums.2, sums.3].map { UInt8(($0 + count / 2) / count) }
                    for y in top..<min(top + block, height) {
                        for x in left..<min(left + block, width) {
                            let index = (y * width + x) * 4
                            for channel in 0..<4 { bytes[index + channel] = mean[channel] }
                        }
                    }
                }
            }
        }
        return Bitmap(width: width, height: height, alphaMode: bitmap.alphaMode, pixels: pixels)
    }

    /// `index` folded into `0..<length` as a mirrored extension repeats the image (0 1 2 2 1 0 0 1…).
    private static func mirrored(_ index: Int, within length: Int) -> Int {
        let folded = index % (2 * length)
        return folded < length ? folded : 2 * length - 1 - folded
    }
}
#endif
