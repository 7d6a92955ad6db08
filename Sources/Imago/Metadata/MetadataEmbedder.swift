import Foundation

/// Writes ``ImageMetadata`` into encoded bytes, where each format keeps it: JPEG `APP1` Exif,
/// `APP1` XMP and `APP13` Photoshop IPTC segments after `SOI` (and a JFIF `APP0`); PNG `eXIf` and
/// an uncompressed `iTXt` `XML:com.adobe.xmp` chunk after `IHDR`; WebP `EXIF` and `XMP ` chunks at
/// the end, with `VP8X`'s flags (a simple file made extended). A block too large for a JPEG
/// segment (64 KiB; extended XMP is not written), IPTC in PNG or WebP (no standard place), and
/// any other format (GIF, AVIF, JPEG XL, HEIF) get nothing.
///
/// Runs on the encoder's output before a gain map is attached (the MPF offsets are relative to
/// their own segment, which it moves along with everything after it).
package enum MetadataEmbedder {
    /// `encoded` (an encoder's output in `format`) with `metadata` written in.
    package static func embed(_ metadata: ImageMetadata, in encoded: Data, format: ImageFormat) throws(ImagePipeline.Error) -> Data {
        guard !metadata.isEmpty else { return encoded }
        switch format {
        case .jpeg: return try jpeg(metadata, encoded)
        case .png: return try png(metadata, encoded)
        case .webp: return try webp(metadata, encoded)
        default: return encoded
        }
    }

    /// The formats ``embed(_:in:format:)`` writes metadata into.
    package static func writes(_ format: ImageFormat) -> Bool { [.jpeg, .png, .webp].contains(format) }

    private static func jpeg(_ metadata: ImageMetadata, _ encoded: Data) throws(ImagePipeline.Error) -> Data {
        let bytes = [UInt8](encoded)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw .encodingFailed(.jpeg, reason: "cannot write the metadata: the encoder's output is not a JPEG")
        }
        var insertAt = 2
        if bytes[2] == 0xFF, bytes[3] == 0xE0, bytes.count >= 6 {
            insertAt = min(4 + (Int(bytes[4]) << 8 | Int(bytes[5])), bytes.count)
        }
        var segments: [UInt8] = []
        func append(_ marker: UInt8, _ signature: [UInt8], _ body: [UInt8]) {
            let length = 2 + signature.count + body.count
            guard length <= 0xFFFF else { return }
            segments += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + signature + body
        }
        if let exif = metadata.exif { append(0xE1, ImageMetadata.jpegEXIFSignature, exif) }
        if let xmp = metadata.xmp { append(0xE1, ImageMetadata.jpegXMPSignature, xmp) }
        if let iptc = metadata.iptc { append(0xED, ImageMetadata.jpegPhotoshopSignature, PhotoshopResources.block(iptc: iptc)) }
        var output = Data(bytes[0..<insertAt])
        output.append(contentsOf: segments)
        output.append(contentsOf: bytes[insertAt...])
        return output
    }

    private static func png(_ metadata: ImageMetadata, _ encoded: Data) throws(ImagePipeline.Error) -> Data {
        let bytes = [UInt8](encoded)
        guard bytes.count >= 33, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            throw .encodingFailed(.png, reason: "cannot write the metadata: the encoder's output is not a PNG")
        }
        var chunks: [UInt8] = []
        func append(_ type: String, _ body: [UInt8]) {
            guard body.count <= ImageMetadata.maximumBlockSize * 2 else { return }
            let typed = Array(type.utf8) + body
            chunks += ByteOrder.bigEndian(UInt32(body.count)) + typed + ByteOrder.bigEndian(Checksum.crc32(typed))
        }
        if let exif = metadata.exif { append("eXIf", exif) }
        // keyword, NUL, uncompressed (0), method 0, no language, NUL, no translated keyword, NUL
        if let xmp = metadata.xmp { append("iTXt", ImageMetadata.pngXMPKeyword + [0, 0, 0, 0, 0] + xmp) }
        var output = Data(bytes[0..<33])
        output.append(contentsOf: chunks)
        output.append(contentsOf: bytes[33...])
        return output
    }

    private static func webp(_ metadata: ImageMetadata, _ encoded: Data) throws(ImagePipeline.Error) -> Data {
        var trailer: [UInt8] = []
        var flags: UInt8 = 0
        func append(_ type: String, _ body: [UInt8], flag: UInt8) {
            guard body.count <= ImageMetadata.maximumBlockSize * 2 else { return }
            trailer += WebPChunks.chunk(type, body)
            flags |= flag
        }
        if let exif = metadata.exif { append("EXIF", exif, flag: 0x08) }
        if let xmp = metadata.xmp { append("XMP ", xmp, flag: 0x04) }
        guard flags != 0 else { return encoded }
        return try WebPChunks.extend(encoded, flags: flags, trailing: trailer, writing: "the metadata")
    }
}
