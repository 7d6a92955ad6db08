import Foundation

/// The size a JPEG XL file declares in its codestream's `SizeHeader`, read with a bounded bit
/// reader and no codec (so on every platform, and before libjxl or ImageIO sees the bytes).
///
/// A bare codestream starts `FF 0A` and its `SizeHeader` follows at once. The ISO BMFF container
/// (a `JXL ` signature box, `ftyp`, then boxes) holds the codestream in one `jxlc` box or split
/// over `jxlp` boxes (each led by a 4-byte index); the header is read from the first of them.
/// The size is the one stored, before the codestream's orientation turns it (libjxl reports it
/// the same way); the limits are symmetric in width and height, so either serves.
enum JXLHeader {
    /// The most boxes walked in a container before giving up (a hostile file of empty boxes).
    static let maximumBoxes = 64

    /// The declared size, or `nil` when the bytes are not JPEG XL or end before the size header.
    static func size(of data: Data) -> PixelSize? {
        let bytes = ByteReader(data)
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0x0A { return codestreamSize(bytes, at: 2, end: bytes.count) }
        guard ImageFormat.sniff(data) == .jxl else { return nil }
        guard let (start, end) = codestreamStart(bytes) else { return nil }
        guard let first = bytes.byte(at: start), let second = bytes.byte(at: start + 1), first == 0xFF, second == 0x0A
        else { return nil }
        return codestreamSize(bytes, at: start + 2, end: end)
    }

    /// Where the codestream begins in a container, and where the box holding it ends: the payload
    /// of its first `jxlc` box, or of its first `jxlp` box after that box's index. (A size header
    /// split over two `jxlp` boxes is not followed: no size, never a wrong one.)
    private static func codestreamStart(_ bytes: ByteReader) -> (start: Int, end: Int)? {
        var offset = 0
        for _ in 0..<maximumBoxes {
            guard let size32 = bytes.uint32BE(at: offset), let type = bytes.ascii(at: offset + 4, count: 4) else { return nil }
            var header = 8
            var size = Int(size32)
            if size32 == 1 {  // a 64-bit size follows the type
                guard let high = bytes.uint32BE(at: offset + 8), let low = bytes.uint32BE(at: offset + 12), high == 0 else {
                    return nil
                }
                size = Int(low)
                header = 16
            } else if size32 == 0 {  // the box runs to the end of the file
                size = bytes.count - offset
            }
            guard size >= header else { return nil }
            let (end, overflow) = offset.addingReportingOverflow(size)
            if overflow { return nil }
            if type == "jxlc" { return (offset + header, min(end, bytes.count)) }
            if type == "jxlp" { return (offset + header + 4, min(end, bytes.count)) }
            offset = end
        }
        return nil
    }

    /// Reads the `SizeHeader` (ISO/IEC 18181-1, A.3): a small size in multiples of 8, or a
    /// height of up to 30 bits and a width either of its own or a fixed ratio of the height.
    private static func codestreamSize(_ bytes: ByteReader, at offset: Int, end: Int) -> PixelSize? {
        var reader = BitReader(bytes: bytes, offset: offset, end: end)
        guard let small = reader.read(1) else { return nil }
        func side() -> Int? {
            if small == 1 { return reader.read(5).map { ($0 + 1) * 8 } }
            guard let selector = reader.read(2), let value = reader.read([9, 13, 18, 30][selector]) else { return nil }
            return value + 1
        }
        guard let height = side(), let ratio = reader.read(3) else { return nil }
        let width: Int
        if ratio == 0 {
            guard let declared = side() else { return nil }
            width = declared
        } else {
            let (numerator, denominator) = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)][ratio - 1]
            width = height * numerator / denominator  // height < 2^30: no overflow
        }
        return PixelSize(width: width, height: height)
    }

    /// Bits in JPEG XL's order: least significant bit of each byte first.
    private struct BitReader {
        let bytes: ByteReader
        var offset: Int
        /// Where the bytes of the codestream (or its first part) end.
        let end: Int
        var bit = 0

        init(bytes: ByteReader, offset: Int, end: Int) {
            self.bytes = bytes
            self.offset = offset
            self.end = end
        }

        /// The next `count` (at most 30) bits as a number, the first read as the lowest; `nil` at the end.
        mutating func read(_ count: Int) -> Int? {
            var value = 0
            for index in 0..<count {
                guard offset < end, let byte = bytes.byte(at: offset) else { return nil }
                value |= Int((byte >> UInt8(bit)) & 1) << index
                bit += 1
                if bit == 8 {
                    bit = 0
                    offset += 1
                }
            }
            return value
        }
    }
}
