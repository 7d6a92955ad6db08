import Foundation

/// Chunks added to what a WebP encoder wrote: a colour profile (`ColorProfileEmbedder`) or
/// metadata (`MetadataEmbedder`). Both need the extended format, so a simple file (one `VP8 ` or
/// `VP8L` chunk) gets a `VP8X` header made from its bitstream's size, and an extended one has its
/// flags raised.
enum WebPChunks {
    /// A chunk: its four-character type, its size (little-endian), its body, and a pad byte when the
    /// size is odd.
    ///
    /// - Precondition: `body` is shorter than 4 GiB (callers bound it first).
    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        var chunk = Array(type.utf8) + ByteOrder.littleEndian(UInt32(body.count)) + body
        if body.count % 2 == 1 { chunk.append(0) }
        return chunk
    }

    /// `encoded` as an extended WebP with `flags` raised in `VP8X`, `leading` right after `VP8X`
    /// (where `ICCP` must be) and `trailing` after the image (`EXIF`, `XMP `).
    ///
    /// - Throws: `encodingFailed` naming `what` when `encoded` is not a WebP, its header is cut
    ///   short or the result would pass RIFF's 4 GiB.
    static func extend(
        _ encoded: Data, flags: UInt8, leading: [UInt8] = [], trailing: [UInt8] = [], writing what: String
    ) throws(ImagePipeline.Error) -> Data {
        let bytes = [UInt8](encoded)
        guard bytes.count >= 20, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WEBP".utf8) else {
            throw .encodingFailed(.webp, reason: "cannot write \(what): the encoder's output is not a WebP")
        }
        let firstType = String(decoding: bytes[12..<16], as: UTF8.self)
        var chunks: [UInt8]
        if firstType == "VP8X" {
            guard bytes.count >= 30 else {
                throw .encodingFailed(.webp, reason: "cannot write \(what): the WebP's VP8X chunk is cut short")
            }
            var extended = Array(bytes[12..<30])
            extended[8] |= flags
            chunks = extended + leading + Array(bytes[30...])
        } else {
            guard let size = canvasSize(bytes, firstType) else {
                throw .encodingFailed(.webp, reason: "cannot write \(what): the WebP bitstream has no readable size")
            }
            // Flags: 0x10 alpha, plus what the caller adds (0x20 ICC, 0x08 EXIF, 0x04 XMP).
            let header: [UInt8] = Array("VP8X".utf8) + ByteOrder.littleEndian(UInt32(10)) + [flags | (size.alpha ? 0x10 : 0), 0, 0, 0]
                + ByteOrder.littleEndian24(size.width - 1) + ByteOrder.littleEndian24(size.height - 1)
            chunks = header + leading + Array(bytes[12...])
        }
        chunks += trailing
        guard chunks.count < Int(UInt32.max) - 4 else { throw .encodingFailed(.webp, reason: "\(what) is too large for a WebP") }
        return Data(Array("RIFF".utf8) + ByteOrder.littleEndian(UInt32(4 + chunks.count)) + Array("WEBP".utf8) + chunks)
    }

    /// The canvas size of a simple WebP (a `VP8 ` or `VP8L` chunk at offset 12) and whether a
    /// lossless one uses alpha.
    static func canvasSize(_ bytes: [UInt8], _ type: String) -> (width: Int, height: Int, alpha: Bool)? {
        let data = 20
        switch type {
        case "VP8 ":
            // Frame tag (3 bytes), start code 9D 01 2A, then 14-bit width and height.
            guard bytes.count >= data + 10, bytes[data + 3] == 0x9D, bytes[data + 4] == 0x01, bytes[data + 5] == 0x2A
            else { return nil }
            let width = (Int(bytes[data + 6]) | Int(bytes[data + 7]) << 8) & 0x3FFF
            let height = (Int(bytes[data + 8]) | Int(bytes[data + 9]) << 8) & 0x3FFF
            return width > 0 && height > 0 ? (width, height, false) : nil
        case "VP8L":
            // Signature 0x2F, then 14 bits width - 1, 14 bits height - 1, 1 bit alpha.
            guard bytes.count >= data + 5, bytes[data] == 0x2F else { return nil }
            let bits = UInt32(bytes[data + 1]) | UInt32(bytes[data + 2]) << 8 | UInt32(bytes[data + 3]) << 16
                | UInt32(bytes[data + 4]) << 24
            return (Int(bits & 0x3FFF) + 1, Int(bits >> 14 & 0x3FFF) + 1, bits >> 28 & 1 == 1)
        default:
            return nil
        }
    }
}
