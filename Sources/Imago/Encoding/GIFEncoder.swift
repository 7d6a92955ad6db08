import Foundation

/// Encodes a still image as GIF, in Swift, on every platform (package access, as the other
/// encoders).
///
/// GIF holds at most 256 colours, so the pixels are mapped onto a fixed palette of 252 colours
/// (6 levels of red, 7 of green, 6 of blue: the eye tells greens apart best) with Floyd–Steinberg
/// error diffusion, which keeps each area's average colour: each pixel is within one palette step
/// of its own colour (51 for red and blue, 43 for green, plus what the neighbours' error adds) and
/// areas average to theirs. A fixed palette needs no analysis pass and gives the same colours for
/// every image; a median-cut palette would fit a photograph closer and is left for later.
/// Pixels with alpha below 128 become the transparent index (GIF has no partial transparency);
/// other pixels are written as if opaque. The bytes are compressed with LZW (``GIFLZWEncoder``).
package struct GIFEncoder: ImageEncoding {
    /// The index that stands for a transparent pixel (after the 252 colours).
    static let transparentIndex: UInt8 = 252
    /// Levels of red, green and blue in the palette.
    static let levels = (red: 6, green: 7, blue: 6)

    /// A GIF encoder (it has no options).
    package init() {}

    /// Always ``ImageFormat/gif``.
    package var format: ImageFormat { .gif }

    /// Encodes `image` as a one-frame GIF89a.
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` for an empty bitmap or one wider
    ///   or higher than GIF's 65,535.
    package func encode(_ image: Bitmap) throws(ImagePipeline.Error) -> Data {
        try checkNotEmpty(image)
        guard image.width <= 65_535, image.height <= 65_535 else {
            throw failure("GIF stores at most 65535 pixels a side; the bitmap is \(image.width)x\(image.height)")
        }
        let (indices, hasTransparency) = Self.indexed(image)
        var bytes: [UInt8] = Array("GIF89a".utf8)
        bytes.reserveCapacity(800 + indices.count / 2)
        Self.append16(image.width, to: &bytes)
        Self.append16(image.height, to: &bytes)
        // A global table of 256 colours (size field 7), colour resolution 8 bits, no sorting.
        bytes += [0xF7, 0, 0]
        bytes += Self.palette
        if hasTransparency {
            // Graphic control extension: no disposal, no delay, transparent index given.
            bytes += [0x21, 0xF9, 0x04, 0x01, 0, 0, Self.transparentIndex, 0]
        }
        bytes += [0x2C, 0, 0, 0, 0]
        Self.append16(image.width, to: &bytes)
        Self.append16(image.height, to: &bytes)
        bytes.append(0)  // no local table, not interlaced
        Self.appendImageData(indices, to: &bytes)
        bytes.append(0x3B)  // trailer
        return Data(bytes)
    }

    /// Appends `indices` as an image's data: the LZW minimum code size, the compressed bytes in
    /// sub-blocks of at most 255, the empty sub-block that ends them.
    static func appendImageData(_ indices: [UInt8], to bytes: inout [UInt8]) {
        bytes.append(8)  // LZW minimum code size for 8-bit indices
        let compressed = GIFLZWEncoder.compress(indices, minimumCodeSize: 8)
        var offset = 0
        while offset < compressed.count {
            let count = min(255, compressed.count - offset)
            bytes.append(UInt8(count))
            bytes += compressed[offset..<offset + count]
            offset += count
        }
        bytes.append(0)
    }

    /// The palette, 256 RGB triples: the 252 colours, then black for the transparent index and
    /// the three unused entries.
    static let palette: [UInt8] = {
        var table: [UInt8] = []
        for red in 0..<levels.red {
            for green in 0..<levels.green {
                for blue in 0..<levels.blue {
                    table += [level(red, of: levels.red), level(green, of: levels.green), level(blue, of: levels.blue)]
                }
            }
        }
        return table + [UInt8](repeating: 0, count: 768 - table.count)
    }()

    /// The 8-bit value of level `index` of `count`.
    static func level(_ index: Int, of count: Int) -> UInt8 {
        UInt8((index * 255 + (count - 1) / 2) / (count - 1))
    }

    /// The nearest level of `count` to `value` (0...255).
    static func nearestLevel(_ value: Int, of count: Int) -> Int {
        (value * (count - 1) + 127) / 255
    }

    /// The palette index of every pixel, dithered (Floyd–Steinberg, left to right), and whether
    /// any pixel is transparent.
    static func indexed(_ image: Bitmap) -> (indices: [UInt8], hasTransparency: Bool) {
        let pixels = image.straightAlphaPixels
        let width = image.width
        var indices = [UInt8](repeating: 0, count: width * image.height)
        var hasTransparency = false
        // The error carried to this row and the next, in sixteenths, 3 channels, one pixel of
        // margin each side.
        var current = [Int](repeating: 0, count: (width + 2) * 3)
        var next = current
        let counts = [levels.red, levels.green, levels.blue]
        for y in 0..<image.height {
            for x in 0..<width {
                let source = (y * width + x) * 4
                if image.alphaMode != .opaque, pixels[source + 3] < 128 {
                    indices[y * width + x] = transparentIndex
                    hasTransparency = true
                    continue
                }
                var chosen = [0, 0, 0]
                for channel in 0..<3 {
                    let slot = (x + 1) * 3 + channel
                    let wanted = max(0, min(255, Int(pixels[source + channel]) + (current[slot] + 8) >> 4))
                    let level = nearestLevel(wanted, of: counts[channel])
                    chosen[channel] = level
                    let error = wanted - Int(self.level(level, of: counts[channel]))
                    current[slot + 3] += error * 7
                    next[slot - 3] += error * 3
                    next[slot] += error * 5
                    next[slot + 3] += error
                }
                indices[y * width + x] = UInt8(chosen[0] * 42 + chosen[1] * 6 + chosen[2])
            }
            swap(&current, &next)
            for index in next.indices { next[index] = 0 }
        }
        return (indices, hasTransparency)
    }

    static func append16(_ value: Int, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value & 0xFF))
        bytes.append(UInt8(value >> 8))
    }
}
