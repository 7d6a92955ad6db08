import Foundation

@testable import Imago

/// Writes RGBA8 PNG files byte by byte, damaged ones included: the zlib stream is stored
/// (uncompressed), so every filter byte sits at a known offset and can be flipped, and chunk CRCs
/// and the Adler-32 can be altered. Interlaced files are written as Adam7.
struct PNGBuilder {
    /// The pixels, RGBA8, straight alpha.
    var bitmap: Bitmap
    var interlaced = false
    /// Filter byte of each encoded row, by its index in the stream (default 0, "none").
    var filterBytes: [Int: UInt8] = [:]
    /// Whether to spoil the IDAT chunk's CRC.
    var badIDATChecksum = false
    /// Whether to spoil zlib's Adler-32.
    var badAdler = false
    /// An ancillary chunk (tEXt) with a spoiled CRC before IDAT.
    var badTextChecksum = false

    init(_ bitmap: Bitmap) { self.bitmap = bitmap }

    /// The encoded rows, each a filter byte and its pixels, in stream order (Adam7 sub-rows pass
    /// by pass when interlaced).
    var encodedRows: [[UInt8]] {
        let width = bitmap.width, height = bitmap.height
        var rows: [[UInt8]] = []
        let passes: [(column: Int, columnStep: Int, row: Int, rowStep: Int)] =
            interlaced ? Adam7Progress.passes : [(column: 0, columnStep: 1, row: 0, rowStep: 1)]
        for pass in passes {
            let columns = Array(stride(from: pass.column, to: width, by: pass.columnStep))
            guard !columns.isEmpty else { continue }
            for y in stride(from: pass.row, to: height, by: pass.rowStep) {
                var row = [UInt8](repeating: 0, count: 1 + columns.count * 4)
                if pass.columnStep == 1 {
                    row.replaceSubrange(1..., with: bitmap.pixels[(y * width * 4)..<((y + 1) * width * 4)])
                } else {
                    for (index, x) in columns.enumerated() {
                        row.replaceSubrange((1 + index * 4)..<(5 + index * 4), with: bitmap.pixels[(y * width + x) * 4..<(y * width + x) * 4 + 4])
                    }
                }
                rows.append(row)
            }
        }
        for (index, filter) in filterBytes where rows.indices.contains(index) { rows[index][0] = filter }
        return rows
    }

    /// The zlib stream of the encoded rows: stored blocks.
    var zlibStream: [UInt8] {
        let raw = encodedRows.flatMap { $0 }
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, raw.count - offset)
            let last: UInt8 = offset + length == raw.count ? 1 : 0
            out += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += raw[offset..<offset + length]
            offset += length
        } while offset < raw.count
        var adler = Self.adler32(raw)
        if badAdler { adler ^= 0x0101_0101 }
        return out + Self.be32(adler)
    }

    /// The whole file.
    var data: Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let header = Self.be32(UInt32(bitmap.width)) + Self.be32(UInt32(bitmap.height)) + [8, 6, 0, 0, interlaced ? 1 : 0]
        bytes += Self.chunk("IHDR", header)
        if badTextChecksum { bytes += Self.chunk("tEXt", Array("Comment\u{0}hello".utf8), spoiled: true) }
        bytes += Self.chunk("IDAT", zlibStream, spoiled: badIDATChecksum)
        bytes += Self.chunk("IEND", [])
        return Data(bytes)
    }

    /// Byte offset in `data` where the IDAT chunk's data starts.
    var idatDataOffset: Int { 8 + 25 + (badTextChecksum ? 12 + 13 : 0) + 8 }

    static func chunk(_ type: String, _ payload: [UInt8], spoiled: Bool = false) -> [UInt8] {
        let typed = Array(type.utf8) + payload
        var crc = crc32(typed)
        if spoiled { crc ^= 0xFFFF }
        return be32(UInt32(payload.count)) + typed + be32(crc)
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// PNG's chunk CRC: zlib's CRC-32, through Imago's `Checksum` (a bitwise loop here took seconds
    /// of a debug test on a photograph-sized stored stream, and many times that under a sanitizer).
    static func crc32(_ bytes: [UInt8]) -> UInt32 { Checksum.crc32(bytes) }

    /// zlib's Adler-32, summed in runs of 5,552 bytes (the most that cannot overflow 32 bits before
    /// the modulo, as zlib does) over the array's storage.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                let end = min(start + 5_552, buffer.count)
                for index in start..<end {
                    a &+= UInt32(buffer[index])
                    b &+= a
                }
                a %= 65_521
                b %= 65_521
                start = end
            }
        }
        return b << 16 | a
    }
}
