/// The images a JPEG's Multi-Picture Format segment lists (CIPA DC-007): the `APP2` segment
/// `MPF\0`, then a TIFF header and an IFD whose `MPEntry` tag (0xB002) holds 16 bytes per image:
/// attributes, size and offset (from the TIFF header's first byte; 0 for the first image, which
/// starts the file). Ultra HDR lists its gain map this way, cameras their large previews.
///
/// Every read is bounded by the segment, every image by the file, with checked arithmetic; at
/// most ``maximumImages`` entries are looked at.
enum MPFIndex {
    /// The `APP2` identifier.
    static let identifier: [UInt8] = Array("MPF".utf8) + [0]
    /// The most images read from one index: Ultra HDR lists two, cameras a few.
    static let maximumImages = 16

    /// The byte ranges in a file of `fileSize` bytes of the images listed by `tiff` (the segment's
    /// bytes after ``identifier``), which starts at byte `tiffStart` of the file; the first is the
    /// primary image. An error says what in the index is wrong.
    static func images(_ tiff: ArraySlice<UInt8>, tiffStart: Int, fileSize: Int) -> Result<[Range<Int>], GainMapProblem> {
        let bytes = Array(tiff)
        let bigEndian: Bool
        switch (bytes.first, bytes.dropFirst().first) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return .failure(GainMapProblem("the MPF segment has no TIFF byte order mark (II or MM)"))
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, bytes.count - at >= 2 else { return nil }
            let (a, b) = (Int(bytes[at]), Int(bytes[at + 1]))
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ at: Int) -> Int? {
            guard at >= 0, bytes.count - at >= 4 else { return nil }
            let value = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[at + (bigEndian ? $1 : 3 - $1)]) }
            return Int(exactly: value)
        }
        guard u16(2) == 42, let ifd = u32(4) else { return .failure(GainMapProblem("the MPF segment's TIFF header is not valid")) }
        guard let count = u16(ifd) else {
            return .failure(GainMapProblem("the MPF index starts at byte \(ifd), past the end of its \(bytes.count)-byte segment"))
        }
        guard count <= (bytes.count - ifd - 2) / 12 else {
            return .failure(GainMapProblem("the MPF index lists \(count) tags, more than its \(bytes.count)-byte segment holds"))
        }
        var entries: (offset: Int, length: Int)?
        for index in 0..<count {
            let tag = ifd + 2 + index * 12
            guard u16(tag) == 0xB002, let length = u32(tag + 4), let offset = u32(tag + 8) else { continue }
            entries = (offset, length)
            break
        }
        guard let entries else { return .failure(GainMapProblem("the MPF index has no MPEntry tag listing the images")) }
        guard entries.length % 16 == 0, entries.length >= 16, entries.offset <= bytes.count,
            entries.length <= bytes.count - entries.offset
        else {
            return .failure(GainMapProblem(
                "the MPF image list (\(entries.length) bytes at \(entries.offset)) does not fit its \(bytes.count)-byte segment in 16-byte entries"))
        }
        var images: [Range<Int>] = []
        for index in 0..<min(entries.length / 16, maximumImages) {
            let entry = entries.offset + index * 16
            guard let size = u32(entry + 4), let offset = u32(entry + 8) else { break }
            // The first image starts the file; the others count from the TIFF header.
            let (start, overflow) = index == 0 ? (0, false) : tiffStart.addingReportingOverflow(offset)
            guard !overflow, index == 0 || offset > 0, start <= fileSize, size <= fileSize - start, size >= 2 else {
                return .failure(GainMapProblem(
                    "MPF image \(index + 1) (\(size) bytes at offset \(offset)) does not lie within the \(fileSize)-byte file"))
            }
            images.append(start..<(start + size))
        }
        return .success(images)
    }
}
