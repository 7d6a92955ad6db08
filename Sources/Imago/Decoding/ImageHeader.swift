import Foundation

/// What an image's header declares, read without decoding a single pixel.
///
/// Limits are checked against these figures before any pixel memory is allocated, so a file that
/// declares 65,535 x 65,535 pixels in a few hundred bytes is refused at once.
public struct ImageHeader: Sendable, Hashable {
    /// The format the signature says.
    public var format: ImageFormat
    /// Declared width in pixels.
    public var width: Int
    /// Declared height in pixels.
    public var height: Int

    /// A header of a still image of this size.
    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }

    /// Declared pixel count (`width * height`); `Int.max` when the product does not fit, so a
    /// header that declares 0xFFFFFFFF x 0xFFFFFFFF is simply over every limit.
    public var pixelCount: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? Int.max : product
    }

    /// Reads the header of `data`; `nil` when the format is unknown or the header is cut short or
    /// malformed.
    public static func probe(_ data: Data) -> ImageHeader? {
        guard let format = ImageFormat.sniff(data) else { return nil }
        let bytes = ByteReader(data)
        switch format {
        case .png: return probePNG(bytes)
        case .gif: return probeGIF(bytes)
        case .jpeg: return probeJPEG(bytes)
        case .webp: return probeWebP(bytes)
        case .heif, .avif: return probeISOBMFF(data, format: format)
        case .jxl: return JXLHeader.size(of: data).flatMap { sized(.jxl, $0.width, $0.height) }
        default: return nil
        }
    }

    /// HEIF and AVIF: the primary item's `ispe` (or the sequence track's size) from the boxes.
    private static func probeISOBMFF(_ data: Data, format: ImageFormat) -> ImageHeader? {
        guard let header = try? ISOBMFFHeader.parse(data) else { return nil }
        return ImageHeader(format: format, width: header.width, height: header.height)
    }

    private static func probePNG(_ bytes: ByteReader) -> ImageHeader? {
        // Signature (8), chunk length (4), "IHDR" (4), width (4), height (4).
        guard bytes.count >= 24, bytes.ascii(at: 12, count: 4) == "IHDR",
            let width = bytes.uint32BE(at: 16), let height = bytes.uint32BE(at: 20),
            width > 0, height > 0
        else { return nil }
        return ImageHeader(format: .png, width: Int(width), height: Int(height))
    }

    private static func probeGIF(_ bytes: ByteReader) -> ImageHeader? {
        guard let width = bytes.uint16LE(at: 6), let height = bytes.uint16LE(at: 8),
            width > 0, height > 0
        else { return nil }
        return ImageHeader(format: .gif, width: Int(width), height: Int(height))
    }

    private static func probeJPEG(_ bytes: ByteReader) -> ImageHeader? {
        // Walk the marker segments after SOI until a start-of-frame marker.
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF {  // fill byte
                offset += 1
                continue
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                offset += 2
                continue
            }
            guard let length = bytes.uint16BE(at: offset + 2), length >= 2 else { return nil }
            let isStartOfFrame =
                (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isStartOfFrame {
                guard let height = bytes.uint16BE(at: offset + 5),
                    let width = bytes.uint16BE(at: offset + 7), width > 0, height > 0
                else { return nil }
                return ImageHeader(format: .jpeg, width: Int(width), height: Int(height))
            }
            if marker == 0xDA || marker == 0xD9 { return nil }  // scan data or end before a frame
            offset += 2 + Int(length)
        }
        return nil
    }

    private static func probeWebP(_ bytes: ByteReader) -> ImageHeader? {
        guard let chunk = bytes.ascii(at: 12, count: 4) else { return nil }
        switch chunk {
        case "VP8 ":
            // Frame tag (3), start code 9D 01 2A, then 14-bit width and height.
            guard bytes.count >= 30, bytes[23] == 0x9D, bytes[24] == 0x01, bytes[25] == 0x2A,
                let width = bytes.uint16LE(at: 26), let height = bytes.uint16LE(at: 28)
            else { return nil }
            return sized(.webp, Int(width & 0x3FFF), Int(height & 0x3FFF))
        case "VP8L":
            guard bytes.count >= 25, bytes[20] == 0x2F else { return nil }
            let b1 = UInt32(bytes[21]), b2 = UInt32(bytes[22]), b3 = UInt32(bytes[23]), b4 = UInt32(bytes[24])
            let width = 1 + Int(b1 | ((b2 & 0x3F) << 8))
            let height = 1 + Int((b2 >> 6) | (b3 << 2) | ((b4 & 0x0F) << 10))
            return sized(.webp, width, height)
        case "VP8X":
            guard bytes.count >= 30, let width = bytes.uint24LE(at: 24), let height = bytes.uint24LE(at: 27)
            else { return nil }
            return sized(.webp, Int(width) + 1, Int(height) + 1)
        default:
            return nil
        }
    }

    private static func sized(_ format: ImageFormat, _ width: Int, _ height: Int) -> ImageHeader? {
        width > 0 && height > 0 ? ImageHeader(format: format, width: width, height: height) : nil
    }
}

/// Bounds-checked reads of fixed-width integers from encoded image bytes.
struct ByteReader {
    private let data: Data
    private let base: Int

    init(_ data: Data) {
        self.data = data
        self.base = data.startIndex
    }

    var count: Int { data.count }

    subscript(offset: Int) -> UInt8 { data[base + offset] }

    func uint16BE(at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= count else { return nil }
        return UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    func uint16LE(at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= count else { return nil }
        return UInt16(self[offset + 1]) << 8 | UInt16(self[offset])
    }

    func uint24LE(at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 3 <= count else { return nil }
        return UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16
    }

    func uint32BE(at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= count else { return nil }
        return (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(self[offset + $1]) }
    }

    /// The bytes in `range` (which must lie within the data), as a new `Data` starting at index 0.
    func slice(_ range: Range<Int>) -> Data {
        Data(data[(base + range.lowerBound)..<(base + range.upperBound)])
    }

    func ascii(at offset: Int, count length: Int) -> String? {
        guard offset >= 0, offset + length <= count else { return nil }
        return String(decoding: data[(base + offset)..<(base + offset + length)], as: UTF8.self)
    }
}
