import Foundation

/// How a camera says its picture must be turned for display: the EXIF `Orientation` tag (0x0112).
///
/// Phones store the sensor's pixels as they came and record the rotation here, so ignoring it
/// shows most portrait photos on their side. The raw values are the tag's 1–8.
package enum EXIFOrientation: Int, Sendable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// Whether displaying the image swaps its width and height.
    var swapsDimensions: Bool { rawValue >= 5 }

    /// The orientation in a JPEG's first APP1 Exif segment, or `nil` when there is none or it is
    /// malformed (a broken Exif block never fails the decoding).
    init?(jpeg bytes: UnsafeBufferPointer<UInt8>) {
        var reader = BoundedBytes(bytes)
        var offset = 2
        while let marker = reader.byte(offset + 1), reader.byte(offset) == 0xFF {
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return nil }  // image data: no Exif before it
            guard let length = reader.uint16(offset + 2, bigEndian: true) else { return nil }
            let segment = offset + 4
            if marker == 0xE1, reader.matches(segment, Array("Exif\0\0".utf8)) {
                reader.base = segment + 6
                guard let value = Self.orientationTag(in: reader) else { return nil }
                self.init(rawValue: value)
                return
            }
            offset = segment + Int(length) - 2
        }
        return nil
    }

    /// The orientation in the JPEG `data` (see ``init(jpeg:)``); the entry point for fuzzing.
    init?(jpeg data: Data) {
        guard let orientation = data.withUnsafeBytes({ Self(jpeg: $0.bindMemory(to: UInt8.self)) }) else { return nil }
        self = orientation
    }

    /// Finds tag 0x0112 in IFD0 of the TIFF structure at `tiff.base`.
    private static func orientationTag(in tiff: BoundedBytes) -> Int? {
        let bigEndian: Bool
        if tiff.matches(0, [0x4D, 0x4D]) { bigEndian = true }
        else if tiff.matches(0, [0x49, 0x49]) { bigEndian = false }
        else { return nil }
        guard tiff.uint16(2, bigEndian: bigEndian) == 42, let ifd = tiff.uint32(4, bigEndian: bigEndian),
            let count = tiff.uint16(Int(ifd), bigEndian: bigEndian)
        else { return nil }
        for index in 0..<Int(count) {
            let entry = Int(ifd) + 2 + index * 12
            guard let tag = tiff.uint16(entry, bigEndian: bigEndian) else { return nil }
            if tag == 0x0112 {
                guard tiff.uint16(entry + 2, bigEndian: bigEndian) == 3 else { return nil }  // SHORT
                return tiff.uint16(entry + 8, bigEndian: bigEndian).map(Int.init)
            }
        }
        return nil
    }

    /// `bitmap` turned upright: the orientation's rotation and mirroring applied.
    package func apply(to bitmap: Bitmap) -> Bitmap {
        if self == .up { return bitmap }
        let (width, height) = (bitmap.width, bitmap.height)
        let (outWidth, outHeight) = swapsDimensions ? (height, width) : (width, height)
        var pixels = [UInt8](repeating: 0, count: bitmap.pixels.count)
        bitmap.pixels.withUnsafeBytes { source in
            pixels.withUnsafeMutableBytes { target in
                let from = source.bindMemory(to: UInt32.self)
                let to = target.bindMemory(to: UInt32.self)
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        let (sx, sy): (Int, Int) =
                            switch self {
                            case .up: (x, y)
                            case .upMirrored: (width - 1 - x, y)
                            case .down: (width - 1 - x, height - 1 - y)
                            case .downMirrored: (x, height - 1 - y)
                            case .leftMirrored: (y, x)
                            case .right: (y, height - 1 - x)
                            case .rightMirrored: (width - 1 - y, height - 1 - x)
                            case .left: (width - 1 - y, x)
                            }
                        to[y * outWidth + x] = from[sy * width + sx]
                    }
                }
            }
        }
        return Bitmap(width: outWidth, height: outHeight, alphaMode: bitmap.alphaMode, pixels: pixels)
    }
}

/// Bounds-checked reads at offsets from `base` in a byte buffer: `nil` past the end.
private struct BoundedBytes {
    let bytes: UnsafeBufferPointer<UInt8>
    var base = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func byte(_ offset: Int) -> UInt8? {
        let index = base + offset
        return offset >= 0 && index < bytes.count ? bytes[index] : nil
    }

    func matches(_ offset: Int, _ expected: [UInt8]) -> Bool {
        expected.indices.allSatisfy { byte(offset + $0) == expected[$0] }
    }

    func uint16(_ offset: Int, bigEndian: Bool) -> UInt16? {
        guard let a = byte(offset), let b = byte(offset + 1) else { return nil }
        return bigEndian ? UInt16(a) << 8 | UInt16(b) : UInt16(b) << 8 | UInt16(a)
    }

    func uint32(_ offset: Int, bigEndian: Bool) -> UInt32? {
        guard let high = uint16(bigEndian ? offset : offset + 2, bigEndian: bigEndian),
            let low = uint16(bigEndian ? offset + 2 : offset, bigEndian: bigEndian)
        else { return nil }
        return UInt32(high) << 16 | UInt32(low)
    }
}
