/// Writes the Multi-Picture Format index of a two-image file (primary image, gain map), the inverse
/// of ``MPFIndex/images(_:tiffStart:fileSize:)``: big-endian TIFF header, an IFD of three tags
/// (MP format version `0100`, number of images, MP entries) and two 16-byte entries, as
/// libultrahdr writes it.
extension MPFIndex {
    /// The whole `APP2` segment's size in bytes, marker included: 2 + 2 + 4 + 8 + 2 + 3 × 12 + 4 + 2 × 16.
    static let twoImageSegmentSize = 90
    /// Where the TIFF header starts, counted from the segment's marker.
    static let tiffHeaderOffset = 8

    /// The `APP2` segment listing a primary image of `primarySize` bytes (which starts the file)
    /// and a gain map of `gainMapSize` bytes at `gainMapOffset` from the TIFF header; `nil` when a
    /// value does not fit 32 bits.
    static func twoImageSegment(primarySize: Int, gainMapSize: Int, gainMapOffset: Int) -> [UInt8]? {
        guard let primarySize = UInt32(exactly: primarySize), let gainMapSize = UInt32(exactly: gainMapSize),
            let gainMapOffset = UInt32(exactly: gainMapOffset)
        else { return nil }
        func u16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func u32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let entriesOffset: UInt32 = 8 + 2 + 3 * 12 + 4
        var bytes: [UInt8] = [0xFF, 0xE2] + u16(UInt16(twoImageSegmentSize - 2)) + identifier
        bytes += [0x4D, 0x4D, 0x00, 0x2A] + u32(8)  // big-endian TIFF header, IFD at 8
        bytes += u16(3)
        bytes += u16(0xB000) + u16(7) + u32(4) + Array("0100".utf8)  // MP format version
        bytes += u16(0xB001) + u16(4) + u32(1) + u32(2)  // number of images
        bytes += u16(0xB002) + u16(7) + u32(32) + u32(entriesOffset)  // MP entries
        bytes += u32(0)  // no next IFD
        bytes += u32(0x0003_0000) + u32(primarySize) + u32(0) + u16(0) + u16(0)  // primary, baseline JPEG
        bytes += u32(0) + u32(gainMapSize) + u32(gainMapOffset) + u16(0) + u16(0)
        return bytes
    }
}
