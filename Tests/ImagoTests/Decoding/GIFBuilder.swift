import Foundation

/// Writes GIF files byte by byte, hostile ones included (frames outside the canvas, any disposal
/// value, zero sizes), with a four-colour global table: 0 black, 1 red, 2 green, 3 blue.
///
/// The LZW data is "uncompressed": literal codes with a clear code after every two, so the code
/// width never grows and each frame costs about 1.5 bytes a pixel.
struct GIFBuilder {
    private(set) var bytes: [UInt8]

    init(width: Int, height: Int) {
        bytes = Array("GIF89a".utf8) + Self.le16(width) + Self.le16(height)
        bytes += [0x81, 0, 0]  // global table of 2^(1+1) = 4 colours
        bytes += [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]
    }

    /// Appends a graphic control extension then an image of `width * height` pixels of colour
    /// `index` (or the given `indices`, row by row).
    mutating func frame(
        x: Int = 0, y: Int = 0, width: Int, height: Int, index: UInt8 = 1, indices: [UInt8]? = nil,
        disposal: Int = 0, transparentIndex: UInt8? = nil, delay: Int = 10
    ) {
        let flags = UInt8((disposal & 0x07) << 2) | (transparentIndex == nil ? 0 : 1)
        bytes += [0x21, 0xF9, 4, flags] + Self.le16(delay) + [transparentIndex ?? 0, 0]
        bytes += [0x2C] + Self.le16(x) + Self.le16(y) + Self.le16(width) + Self.le16(height) + [0]
        let pixels = indices ?? [UInt8](repeating: index, count: width * height)
        bytes += [2] + Self.subBlocks(Self.lzw(pixels))
    }

    /// Appends raw bytes (a descriptor with no data, garbage…).
    mutating func append(_ raw: [UInt8]) { bytes += raw }

    /// The file with its trailer.
    var data: Data { Data(bytes + [0x3B]) }

    /// Minimum code size 2: clear = 4, end = 5, 3-bit codes.
    static func lzw(_ indices: [UInt8]) -> [UInt8] {
        var codes: [Int] = []
        for (offset, index) in indices.enumerated() {
            if offset % 2 == 0 { codes.append(4) }
            codes.append(Int(index & 0x03))
        }
        codes.append(5)
        var out: [UInt8] = []
        var bits = 0
        var count = 0
        for code in codes {
            bits |= code << count
            count += 3
            while count >= 8 {
                out.append(UInt8(bits & 0xFF))
                bits >>= 8
                count -= 8
            }
        }
        if count > 0 { out.append(UInt8(bits & 0xFF)) }
        return out
    }

    static func subBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        while start < data.count {
            let length = min(255, data.count - start)
            out += [UInt8(length)] + data[start..<(start + length)]
            start += length
        }
        return out + [0]
    }

    static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
}
