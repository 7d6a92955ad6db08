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
            chunks += bigEndian(UInt32(body.count)) + typed + bigEndian(Checksum.crc32(typed))
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
        let bytes = [UInt8](encoded)
        guard bytes.count >= 20, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WEBP".utf8) else {
            throw .encodingFailed(.webp, reason: "cannot write the metadata: the encoder's output is not a WebP")
        }
        var trailer: [UInt8] = []
        var flags: UInt8 = 0
        func append(_ type: String, _ body: [UInt8], flag: UInt8) {
            guard body.count <= ImageMetadata.maximumBlockSize * 2 else { return }
            trailer += Array(type.utf8) + littleEndian(UInt32(body.count)) + body
            if body.count & 1 == 1 { trailer.append(0) }
            flags |= flag
        }
        if let exif = metadata.exif { append("EXIF", exif, flag: 0x08) }
        if let xmp = metadata.xmp { append("XMP ", xmp, flag: 0x04) }
        guard flags != 0 else { return encoded }
        let firstType = String(decoding: bytes[12..<16], as: UTF8.self)
        var chunks: [UInt8]
        if firstType == "VP8X" {
            guard bytes.count >= 30 else {
                throw .encodingFailed(.webp, reason: "cannot write the metadata: the WebP's VP8X chunk is cut short")
            }
            var extended = Array(bytes[12..<30])
            extended[8] |= flags
            chunks = extended + Array(bytes[30...])
        } else {
            guard let size = ColorProfileEmbedder.canvasSize(bytes, firstType) else {
                throw .encodingFailed(.webp, reason: "cannot write the metadata: the WebP bitstream has no readable size")
            }
            let header: [UInt8] = Array("VP8X".utf8) + littleEndian(UInt32(10)) + [flags | (size.alpha ? 0x10 : 0), 0, 0, 0]
                + littleEndian24(size.width - 1) + littleEndian24(size.height - 1)
            chunks = header + Array(bytes[12...])
        }
        chunks += trailer
        guard chunks.count < Int(UInt32.max) - 4 else { throw .encodingFailed(.webp, reason: "the metadata is too large") }
        return Data(Array("RIFF".utf8) + littleEndian(UInt32(4 + chunks.count)) + Array("WEBP".utf8) + chunks)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    private static func littleEndian24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }
}
