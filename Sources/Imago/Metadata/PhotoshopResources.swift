/// Photoshop's image resource blocks (`8BIM`, a 16-bit id, a padded Pascal name, a 32-bit size,
/// the data padded to even), as JPEG's `APP13` `Photoshop 3.0` segment holds them: the IPTC-IIM
/// records are resource 0x0404.
enum PhotoshopResources {
    static let signature = Array("8BIM".utf8)
    static let iptcResource = 0x0404

    /// The data of the first IPTC resource (0x0404) in `blocks`, or `nil`. Reading stops at the
    /// first block that is not a well-formed `8BIM` block.
    static func iptc(in blocks: [UInt8]) -> [UInt8]? {
        blocks.withUnsafeBufferPointer { buffer in
            let bytes = MetadataBytes(buffer)
            var offset = 0
            while bytes.matches(offset, signature), let id = bytes.uint16(offset + 4, bigEndian: true),
                let nameLength = bytes.byte(offset + 6)
            {
                // The name's length byte and characters, padded to an even count.
                let name = (1 + Int(nameLength) + 1) & ~1
                let sizeOffset = offset + 6 + name
                guard let size = bytes.uint32(sizeOffset, bigEndian: true), let data = bytes.slice(sizeOffset + 4, length: size)
                else { return nil }
                if id == iptcResource { return ImageMetadata.block(data) }
                offset = sizeOffset + 4 + size + (size & 1)
            }
            return nil
        }
    }

    /// One `8BIM` block holding `iptc` as resource 0x0404 with an empty name.
    static func block(iptc: [UInt8]) -> [UInt8] {
        var block = signature + [0x04, 0x04, 0, 0]
        let size = iptc.count
        block += [UInt8(truncatingIfNeeded: size >> 24), UInt8(truncatingIfNeeded: size >> 16), UInt8(truncatingIfNeeded: size >> 8), UInt8(truncatingIfNeeded: size)]
        block += iptc
        if size & 1 == 1 { block.append(0) }
        return block
    }
}
