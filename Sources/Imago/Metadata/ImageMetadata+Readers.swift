import Foundation

extension ImageMetadata {
    /// The metadata blocks of an encoded JPEG (`APP1` Exif, `APP1` XMP, `APP13` Photoshop IPTC),
    /// PNG (`eXIf`; `iTXt` or `zTXt` `XML:com.adobe.xmp`, inflated up to ``maximumBlockSize``) or WebP (`EXIF`, `XMP ` chunks) file;
    /// `nil` for another format or a file that carries none. Malformed structures end the reading
    /// with what was found before them; nothing here traps on any bytes.
    package static func read(from data: Data) -> ImageMetadata? {
        data.withUnsafeBytes { raw in
            let bytes = MetadataBytes(raw.bindMemory(to: UInt8.self))
            if bytes.matches(0, [0xFF, 0xD8]) { return jpeg(bytes)?.nonEmpty }
            if bytes.matches(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(bytes)?.nonEmpty }
            if bytes.matches(0, Array("RIFF".utf8)), bytes.matches(8, Array("WEBP".utf8)) { return webp(bytes)?.nonEmpty }
            return nil
        }
    }

    static let jpegEXIFSignature = Array("Exif\0\0".utf8)
    static let jpegXMPSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let jpegPhotoshopSignature = Array("Photoshop 3.0\0".utf8)

    /// The JPEG's segments up to its first scan.
    private static func jpeg(_ bytes: MetadataBytes) -> ImageMetadata? {
        var metadata = ImageMetadata()
        var photoshop: [UInt8] = []
        var offset = 2
        while let marker = bytes.byte(offset + 1), bytes.byte(offset) == 0xFF {
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { break }  // image data: metadata comes before it
            if (0xD0...0xD8).contains(marker) || marker == 0x01 { offset += 2; continue }  // no length
            guard let length = bytes.uint16(offset + 2, bigEndian: true), length >= 2,
                let segment = bytes.slice(offset + 4, length: length - 2)
            else { break }
            let body = MetadataBytes(UnsafeBufferPointer(rebasing: segment))
            if marker == 0xE1, metadata.exif == nil, body.matches(0, jpegEXIFSignature) {
                metadata.exif = tiff(segment.dropFirst(jpegEXIFSignature.count))
            } else if marker == 0xE1, metadata.xmp == nil, body.matches(0, jpegXMPSignature) {
                metadata.xmp = block(segment.dropFirst(jpegXMPSignature.count))
            } else if marker == 0xED, body.matches(0, jpegPhotoshopSignature), photoshop.count < maximumBlockSize {
                // Photoshop splits a large resource block over consecutive APP13 segments.
                photoshop += segment.dropFirst(jpegPhotoshopSignature.count)
            }
            offset += 2 + length
        }
        if !photoshop.isEmpty { metadata.iptc = PhotoshopResources.iptc(in: photoshop) }
        return metadata
    }

    static let pngXMPKeyword = Array("XML:com.adobe.xmp".utf8)

    /// The PNG's chunks up to `IEND`.
    private static func png(_ bytes: MetadataBytes) -> ImageMetadata? {
        var metadata = ImageMetadata()
        var offset = 8
        while let length = bytes.uint32(offset, bigEndian: true), let type = bytes.slice(offset + 4, length: 4),
            let body = bytes.slice(offset + 8, length: length)
        {
            let name = String(decoding: type, as: UTF8.self)
            if name == "IEND" { break }
            if name == "eXIf", metadata.exif == nil {
                metadata.exif = tiff(body)
            } else if name == "iTXt" || name == "zTXt", metadata.xmp == nil {
                metadata.xmp = pngXMP(Array(body), isZTXt: name == "zTXt")
            }
            offset += 12 + length
        }
        return metadata
    }

    /// The text of an `iTXt` chunk (or a `zTXt` one, as libvips writes it) whose keyword is
    /// `XML:com.adobe.xmp`, inflated when compressed; `nil` otherwise.
    static func pngXMP(_ body: [UInt8], isZTXt: Bool = false) -> [UInt8]? {
        let keyword = pngXMPKeyword.count
        guard body.count > keyword + 2, Array(body.prefix(keyword)) == pngXMPKeyword, body[keyword] == 0 else { return nil }
        if isZTXt {
            // keyword \0, method 0, zlib stream
            guard body[keyword + 1] == 0 else { return nil }
            return inflated(body[(keyword + 2)...])
        }
        // keyword \0, compression flag, method 0, language \0, translated keyword \0, text
        guard body.count > keyword + 3, body[keyword + 1] <= 1, body[keyword + 2] == 0 else { return nil }
        var index = keyword + 3
        for _ in 0..<2 {
            guard index <= body.count, let end = body[index...].firstIndex(of: 0) else { return nil }
            index = end + 1
        }
        return body[keyword + 1] == 1 ? inflated(body[index...]) : block(body[index...])
    }

    /// A zlib stream inflated, when it inflates within ``maximumBlockSize``.
    private static func inflated(_ compressed: ArraySlice<UInt8>) -> [UInt8]? {
        guard case .success(let text) = EmbeddedColor.inflate(Data(compressed), limit: maximumBlockSize) else { return nil }
        return block(text)
    }

    /// The WebP's RIFF chunks.
    private static func webp(_ bytes: MetadataBytes) -> ImageMetadata? {
        var metadata = ImageMetadata()
        var offset = 12
        while let type = bytes.slice(offset, length: 4), let length = bytes.uint32(offset + 4, bigEndian: false),
            let body = bytes.slice(offset + 8, length: length)
        {
            let name = String(decoding: type, as: UTF8.self)
            if name == "EXIF", metadata.exif == nil {
                // Some writers keep JPEG's prefix.
                let prefixed = MetadataBytes(UnsafeBufferPointer(rebasing: body)).matches(0, jpegEXIFSignature)
                metadata.exif = tiff(prefixed ? body.dropFirst(jpegEXIFSignature.count) : body)
            } else if name == "XMP ", metadata.xmp == nil {
                metadata.xmp = block(body)
            }
            offset += 8 + length + (length & 1)
        }
        return metadata
    }

    /// `bytes` when they start like a TIFF structure (`II*\0` or `MM\0*`).
    static func tiff<C: Collection<UInt8>>(_ bytes: C) -> [UInt8]? {
        let head = Array(bytes.prefix(4))
        guard head == [0x49, 0x49, 0x2A, 0x00] || head == [0x4D, 0x4D, 0x00, 0x2A] else { return nil }
        return block(bytes)
    }
}
