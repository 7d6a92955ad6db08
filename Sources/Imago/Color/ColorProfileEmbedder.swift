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
        var chunk = ByteOrder.bigEndian(UInt32(body.count))
        let typed = Array("iCCP".utf8) + body
        chunk += typed
        chunk += ByteOrder.bigEndian(Checksum.crc32(typed))
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
        guard profile.count < Int(UInt32.max) - 64, encoded.count < Int(UInt32.max) - profile.count - 64 else {
            throw .encodingFailed(.webp, reason: "the colour profile is too large")
        }
        // Flag 0x20: an ICC profile follows VP8X.
        return try WebPChunks.extend(
            encoded, flags: 0x20, leading: WebPChunks.chunk("ICCP", [UInt8](profile)), writing: "the colour profile")
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
}
