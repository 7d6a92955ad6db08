import CZlib
import Foundation

/// Writes an ICC profile into encoded bytes, where each format keeps it: JPEG `APP2` segments
/// (`ICC_PROFILE`, split at 65,519 bytes), a PNG `iCCP` chunk after `IHDR` (in place of the
/// `sRGB`, `gAMA`, `cHRM` or `cICP` the encoder wrote), a WebP `ICCP` chunk after `VP8X` (turning
/// a simple file into an extended one).
///
/// The encoders call it for a container whose pixels kept their profile
/// (``ColorProfileHandling/keep``); it works on the bytes they wrote, so every encoder on every
/// platform writes the profile the same way.
enum ColorProfileEmbedder {
    /// `encoded` with `profile` written in; `encoded` unchanged when the format keeps no profile.
    static func embed(_ profile: Data, in encoded: Data, format: ImageFormat) throws(ImagePipeline.Error) -> Data {
        switch format {
        case .jpeg: return try jpeg(profile, encoded)
        case .png: return try png(profile, encoded)
        case .webp: return try webp(profile, encoded)
        default: return encoded
        }
    }

    private static let jpegChunk = 65_519

    private static func jpeg(_ profile: Data, _ encoded: Data) throws(ImagePipeline.Error) -> Data {
        let bytes = [UInt8](encoded)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw .encodingFailed(.jpeg, reason: "cannot write the colour profile: the encoder's output is not a JPEG")
        }
        let count = (profile.count + jpegChunk - 1) / jpegChunk
        guard count >= 1, count <= 255 else {
            throw .encodingFailed(.jpeg, reason: "a colour profile of \(profile.count) bytes does not fit in 255 APP2 segments")
        }
        // After SOI and a JFIF APP0, where libjpeg and Photoshop put it.
        var insertAt = 2
        if bytes.count >= 6, bytes[2] == 0xFF, bytes[3] == 0xE0 {
            insertAt = min(4 + (Int(bytes[4]) << 8 | Int(bytes[5])), bytes.count)
        }
        var output = Data(bytes[0..<insertAt])
        let profileBytes = [UInt8](profile)
        for index in 0..<count {
            let part = profileBytes[(index * jpegChunk)..<min((index + 1) * jpegChunk, profileBytes.count)]
            let length = 2 + 14 + part.count
            output.append(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)])
            output.append(contentsOf: Array("ICC_PROFILE\0".utf8))
            output.append(contentsOf: [UInt8(index + 1), UInt8(count)])
            output.append(contentsOf: part)
        }
        output.append(contentsOf: bytes[insertAt...])
        return output
    }

    private static func png(_ profile: Data, _ encoded: Data) throws(ImagePipeline.Error) -> Data {
        let bytes = [UInt8](encoded)
        // Signature (8), then IHDR: length 13, type, data, CRC = 25 bytes.
        guard bytes.count >= 33, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            throw .encodingFailed(.png, reason: "cannot write the colour profile: the encoder's output is not a PNG")
        }
        guard let compressed = deflate(profile) else {
            throw .encodingFailed(.png, reason: "zlib could not compress the colour profile")
        }
        var body = [UInt8]("ICC Profile".utf8) + [0, 0]
        body += compressed
        guard body.count < Int(Int32.max) else { throw .encodingFailed(.png, reason: "the colour profile is too large") }
        var chunk = bigEndian(UInt32(body.count))
        let typed = Array("iCCP".utf8) + body
        chunk += typed
        chunk += bigEndian(Checksum.crc32(typed))
        var output = Data(bytes[0..<33])
        output.append(contentsOf: chunk)
        // The chunks after IHDR, less the colour declarations the profile replaces.
        var offset = 33
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let end = offset + 12 + length
            guard end <= bytes.count else { break }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if !["sRGB", "gAMA", "cHRM", "iCCP", "cICP"].contains(type) { output.append(contentsOf: bytes[offset..<end]) }
            offset = end
        }
        output.append(contentsOf: bytes[offset...])
        return output
    }

    private static func webp(_ profile: Data, _ encoded: Data) throws(ImagePipeline.Error) -> Data {
        let bytes = [UInt8](encoded)
        guard bytes.count >= 20, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WEBP".utf8) else {
            throw .encodingFailed(.webp, reason: "cannot write the colour profile: the encoder's output is not a WebP")
        }
        guard profile.count < Int(UInt32.max) - 64, bytes.count < Int(UInt32.max) - profile.count - 64 else {
            throw .encodingFailed(.webp, reason: "the colour profile is too large")
        }
        var iccp = Array("ICCP".utf8) + littleEndian(UInt32(profile.count)) + [UInt8](profile)
        if profile.count % 2 == 1 { iccp.append(0) }
        let firstType = String(decoding: bytes[12..<16], as: UTF8.self)
        var chunks: [UInt8]
        if firstType == "VP8X" {
            guard bytes.count >= 30 else {
                throw .encodingFailed(.webp, reason: "cannot write the colour profile: the WebP's VP8X chunk is cut short")
            }
            // Flags byte: bit 5 (0x20) says an ICC profile follows.
            var extended = Array(bytes[12..<30])
            extended[8] |= 0x20
            chunks = extended + iccp + Array(bytes[30...])
        } else {
            guard let size = canvasSize(bytes, firstType) else {
                throw .encodingFailed(.webp, reason: "cannot write the colour profile: the WebP bitstream has no readable size")
            }
            let flags: UInt8 = 0x20 | (size.alpha ? 0x10 : 0)
            let header: [UInt8] = Array("VP8X".utf8) + littleEndian(UInt32(10)) + [flags, 0, 0, 0]
                + littleEndian24(size.width - 1) + littleEndian24(size.height - 1)
            chunks = header + iccp + Array(bytes[12...])
        }
        return Data(Array("RIFF".utf8) + littleEndian(UInt32(4 + chunks.count)) + Array("WEBP".utf8) + chunks)
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

    /// zlib-compressed `data` (for `iCCP`).
    static func deflate(_ data: Data) -> [UInt8]? {
        let input = [UInt8](data)
        var length = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { compress2(out.baseAddress, &length, $0.baseAddress, uLong($0.count), 9) }
        }
        guard status == Z_OK else { return nil }
        return Array(output.prefix(Int(length)))
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
