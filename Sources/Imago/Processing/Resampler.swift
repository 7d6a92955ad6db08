import Foundation

/// Scales a ``Bitmap`` with a separable filter: Lanczos-3 when shrinking (sharp, no aliasing),
/// Catmull-Rom when enlarging (interpolates without Lanczos's stronger ringing).
///
/// The filter runs in premultiplied alpha, so the meaningless colour of transparent pixels cannot
/// bleed into their neighbours as a dark fringe; the result has the source's alpha mode. Each
/// source row is filtered horizontally into a small ring of rows that the vertical pass reads, so
/// besides the output only a few rows are held, never a full-size intermediate. Filtering happens
/// on the stored (sRGB-encoded) values, as most image libraries do, or, when asked, in linear
/// light (`linearLight`), as libvips' `thumbnail --linear` and imgproxy's
/// `IMGPROXY_USE_LINEAR_COLORSPACE` do: fine light-and-dark detail then keeps its brightness (a
/// shrunk pattern of black and white lines is 188 grey, not 128), at the cost of two table
/// lookups a sample.
package enum Resampler {
    /// The part of the source, in source pixels (fractions allowed), that fills the destination.
    package struct Region: Equatable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double

        /// The whole of `bitmap`.
        init(of bitmap: Bitmap) {
            self.init(x: 0, y: 0, width: Double(bitmap.width), height: Double(bitmap.height))
        }

        package init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// `region` of `source` scaled to exactly `size`. Pixels just outside `region` still feed the
    /// filter at its edges, which is what a crop after a full resize would have shown.
    ///
    /// - Precondition: `source` and `size` are non-empty and `region` lies within `source`.
    package static func resample(
        _ source: Bitmap, region: Region? = nil, to size: PixelSize, linearLight: Bool = false
    ) -> Bitmap {
        let region = region ?? Region(of: source)
        precondition(source.width > 0 && source.height > 0 && size.width > 0 && size.height > 0)
        if region == Region(of: source) && size == PixelSize(width: source.width, height: source.height) {
            return source
        }
        let horizontal = Contributions(
            sourceCount: source.width, start: region.x, length: region.width, destinationCount: size.width)
        let vertical = Contributions(
            sourceCount: source.height, start: region.y, length: region.height, destinationCount: size.height)

        // Rows of floats are laid out R, G, B, A per pixel. The loops below are plain `while`
        // loops over raw pointers with scalar arithmetic, because in a debug build (where users
        // first run `imago demo`) every `SIMD4` operation, iterator step or array subscript is a
        // function call; optimised, the compiler vectorises these loops itself.
        let rowLength = size.width * 4
        // Horizontally filtered rows, indexed by source row modulo the capacity: enough for the
        // widest vertical window, and the windows only move down.
        let ringCapacity = vertical.stride
        let ring = UnsafeMutablePointer<Float>.allocate(capacity: ringCapacity * rowLength)
        defer { ring.deallocate() }
        let sourceRow = UnsafeMutablePointer<Float>.allocate(capacity: source.width * 4)
        defer { sourceRow.deallocate() }
        let accumulator = UnsafeMutablePointer<Float>.allocate(capacity: rowLength)
        defer { accumulator.deallocate() }

        let premultiply = source.alphaMode == .straight
        // Linear light on the 0...255 scale of the stored values, and back (``SRGBTransfer``);
        // empty when not asked for (an empty array's buffer may still have an address).
        let toLinear: [Float] = linearLight ? SRGBTransfer.linear.map { $0 * 255 } : []
        let encoded: [UInt8] = linearLight ? SRGBTransfer.encoded : []
        let pixels = [UInt8](unsafeUninitializedCapacity: size.height * rowLength) { output, initialized in
            let output = output.baseAddress!
            toLinear.withUnsafeBufferPointer { toLinear in
                encoded.withUnsafeBufferPointer { encoded in
                    source.pixels.withUnsafeBufferPointer { input in
                        let input = input.baseAddress!
                        horizontal.withUnsafeTable { horizontal in
                            vertical.withUnsafeTable { vertical in
                                var nextRow = 0  // the first source row not filtered yet
                                for y in 0..<size.height {
                                    let first = vertical.first[y]
                                    if nextRow < first { nextRow = first }
                                    while nextRow < first + vertical.stride {
                                        let row = input + nextRow * source.bytesPerRow
                                        if linearLight, let toLinear = toLinear.baseAddress {
                                            loadLinearRow(
                                                row, count: source.width, alphaMode: source.alphaMode, toLinear: toLinear,
                                                into: sourceRow)
                                        } else {
                                            loadRow(row, count: source.width, premultiply: premultiply, into: sourceRow)
                                        }
                                        horizontal.filter(sourceRow, into: ring + (nextRow % ringCapacity) * rowLength)
                                        nextRow += 1
                                    }
                                    vertical.combine(
                                        ring: ring, capacity: ringCapacity, rowLength: rowLength, at: y, into: accumulator)
                                    if linearLight, let encoded = encoded.baseAddress {
                                        storeLinear(
                                            accumulator, count: size.width, alphaMode: source.alphaMode, encoded: encoded,
                                            into: output + y * rowLength)
                                    } else {
                                        store(
                                            accumulator, count: size.width, alphaMode: source.alphaMode,
                                            into: output + y * rowLength)
                                    }
                                }
                            }
                        }
                    }
                }
            }
            initialized = size.height * rowLength
        }
        return Bitmap(width: size.width, height: size.height, alphaMode: source.alphaMode, pixels: pixels)
    }

    /// One source row (`count` RGBA8 pixels) as premultiplied floats on the 0...255 scale.
    private static func loadRow(
        _ input: UnsafePointer<UInt8>, count: Int, premultiply: Bool, into destination: UnsafeMutablePointer<Float>
    ) {
        var index = 0
        let end = count * 4
        if premultiply {
            while index < end {
                let alpha = Float(input[index + 3])
                let scale = alpha / 255
                destination[index] = Float(input[index]) * scale
                destination[index + 1] = Float(input[index + 1]) * scale
                destination[index + 2] = Float(input[index + 2]) * scale
                destination[index + 3] = alpha
                index += 4
            }
        } else {
            // A plain conversion, which an optimised build turns into vector instructions.
            while index < end {
                destination[index] = Float(input[index])
                index += 1
            }
        }
    }

    /// ``loadRow(_:count:premultiply:into:)`` in linear light: each colour sample, straight,
    /// through `toLinear` (256 entries, 0...255), then premultiplied; alpha is linear already. A
    /// premultiplied source's colours are unpremultiplied first (to the nearest stored value).
    private static func loadLinearRow(
        _ input: UnsafePointer<UInt8>, count: Int, alphaMode: Bitmap.AlphaMode, toLinear: UnsafePointer<Float>,
        into destination: UnsafeMutablePointer<Float>
    ) {
        var index = 0
        let end = count * 4
        while index < end {
            let alpha = input[index + 3]
            let scale = alphaMode == .opaque ? 1 : Float(alpha) / 255
            for channel in 0..<3 {
                var stored = Int(input[index + channel])
                if alphaMode == .premultiplied {
                    // 0 when alpha is 0; at most 255 for a colour that exceeds its alpha.
                    stored = alpha == 0 ? 0 : min(255, (stored * 255 + Int(alpha) / 2) / Int(alpha))
                }
                destination[index + channel] = toLinear[stored] * scale
            }
            destination[index + 3] = Float(alpha)
            index += 4
        }
    }

    /// ``store(_:count:alphaMode:into:)`` from linear light: each colour, unpremultiplied, back to
    /// a stored value through `encoded` (``SRGBTransfer/encoded``), then premultiplied again for
    /// a premultiplied bitmap.
    private static func storeLinear(
        _ row: UnsafePointer<Float>, count: Int, alphaMode: Bitmap.AlphaMode, encoded: UnsafePointer<UInt8>,
        into output: UnsafeMutablePointer<UInt8>
    ) {
        var index = 0
        let end = count * 4
        while index < end {
            var red = row[index], green = row[index + 1], blue = row[index + 2], alpha: Float = 255
            if alphaMode != .opaque {
                alpha = row[index + 3]
                alpha = alpha < 0 ? 0 : alpha > 255 ? 255 : alpha
                if alpha < 0.5 {
                    output.advanced(by: index).update(repeating: 0, count: 4)
                    index += 4
                    continue
                }
                let scale = 255 / alpha
                red *= scale
                green *= scale
                blue *= scale
            }
            var stored = (
                Float(encoded[step(red)]), Float(encoded[step(green)]), Float(encoded[step(blue)])
            )
            if alphaMode == .premultiplied {
                let scale = byte(alpha) == 255 ? 1 : Float(byte(alpha)) / 255
                stored = (stored.0 * scale, stored.1 * scale, stored.2 * scale)
            }
            output[index] = byte(stored.0)
            output[index + 1] = byte(stored.1)
            output[index + 2] = byte(stored.2)
            output[index + 3] = alphaMode == .opaque ? 255 : byte(alpha)
            index += 4
        }
    }

    /// The index in ``SRGBTransfer/encoded`` of linear `value` on the 0...255 scale, clamped and
    /// rounded (the same bit trick as ``byte(_:)``; 65,535 / 255 = 257).
    @inline(__always)
    private static func step(_ value: Float) -> Int {
        let clamped = value < 0 ? 0 : value > 255 ? 255 : value
        return Int(UInt16(truncatingIfNeeded: (clamped * 257 + 12_582_912).bitPattern))
    }

    /// Writes `count` premultiplied float pixels as RGBA8 in `alphaMode`, rounded and clamped.
    private static func store(
        _ row: UnsafePointer<Float>, count: Int, alphaMode: Bitmap.AlphaMode, into output: UnsafeMutablePointer<UInt8>
    ) {
        var index = 0
        let end = count * 4
        switch alphaMode {
        case .opaque:
            // Apart from the others, so that this most common case has no branch per pixel.
            while index < end {
                output[index] = byte(row[index])
                output[index + 1] = byte(row[index + 1])
                output[index + 2] = byte(row[index + 2])
                output[index + 3] = 255
                index += 4
            }
        case .straight:
            while index < end {
                var red = row[index], green = row[index + 1], blue = row[index + 2], alpha = row[index + 3]
                if alpha > 255 { alpha = 255 }
                if alpha < 0.5 {
                    (red, green, blue, alpha) = (0, 0, 0, 0)
                } else {
                    let scale = 255 / alpha
                    red *= scale
                    green *= scale
                    blue *= scale
                }
                output[index] = byte(red)
                output[index + 1] = byte(green)
                output[index + 2] = byte(blue)
                output[index + 3] = byte(alpha)
                index += 4
            }
        case .premultiplied:
            while index < end {
                // No colour may exceed its alpha.
                var alpha = row[index + 3]
                alpha = alpha < 0 ? 0 : alpha > 255 ? 255 : alpha
                let red = row[index], green = row[index + 1], blue = row[index + 2]
                output[index] = byte(red > alpha ? alpha : red)
                output[index + 1] = byte(green > alpha ? alpha : green)
                output[index + 2] = byte(blue > alpha ? alpha : blue)
                output[index + 3] = byte(alpha)
                index += 4
            }
        }
    }

    /// `value` clamped to 0...255 and rounded to the nearest byte (halves to even).
    ///
    /// Adding 1.5 × 2²³ leaves the rounded integer in the low bits of the float's significand, so
    /// the conversion is a bit mask: no branch and no trapping float-to-integer check, which lets
    /// an optimised build vectorise the loops that call it.
    @inline(__always)
    private static func byte(_ value: Float) -> UInt8 {
        let clamped = value < 0 ? 0 : value > 255 ? 255 : value
        return UInt8(truncatingIfNeeded: (clamped + 12_582_912).bitPattern)
    }
}
