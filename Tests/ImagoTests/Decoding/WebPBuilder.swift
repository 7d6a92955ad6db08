import Foundation

/// Writes animated WebP files chunk by chunk, hostile ones included (frames whose bitstream is not
/// the size their ANMF chunk declares, frames outside the canvas, many frames on a huge canvas).
/// Frame bitstreams are taken whole from a real still (its `VP8L` or `VP8 ` chunk).
struct WebPBuilder {
    private var chunks: [UInt8] = []
    private let header: [UInt8]

    init(canvasWidth: Int, canvasHeight: Int, loopCount: Int = 0) {
        header = Self.chunk("VP8X", [0x12, 0, 0, 0] + Self.le24(canvasWidth - 1) + Self.le24(canvasHeight - 1))
            + Self.chunk("ANIM", [0, 0, 0, 0] + [UInt8(loopCount & 0xFF), UInt8(loopCount >> 8 & 0xFF)])
    }

    /// Appends an ANMF chunk declaring `width` x `height` at (`x`, `y`) (even offsets) holding
    /// `bitstream`, a whole `VP8L`/`VP8 ` chunk.
    mutating func frame(
        x: Int = 0, y: Int = 0, width: Int, height: Int, duration: Int = 100, disposesToBackground: Bool = false,
        bitstream: [UInt8]
    ) {
        let flags: UInt8 = disposesToBackground ? 0x01 : 0
        let payload = Self.le24(x / 2) + Self.le24(y / 2) + Self.le24(width - 1) + Self.le24(height - 1)
            + Self.le24(duration) + [flags] + bitstream
        chunks += Self.chunk("ANMF", payload)
    }

    var data: Data {
        let body = Array("WEBP".utf8) + header + chunks
        return Data(Array("RIFF".utf8) + Self.le32(body.count) + body)
    }

    /// The first image chunk (`VP8L` or `VP8 `, header included) of a still WebP file.
    static func bitstream(of still: Data) -> [UInt8]? {
        let bytes = [UInt8](still)
        var offset = 12
        while offset + 8 <= bytes.count {
            let fourCC = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            let end = offset + 8 + size + (size & 1)
            if fourCC == "VP8L" || fourCC == "VP8 " { return Array(bytes[offset..<min(end, bytes.count)]) }
            offset = end
        }
        return nil
    }

    static func chunk(_ fourCC: String, _ payload: [UInt8]) -> [UInt8] {
        Array(fourCC.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    static func le24(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
    static func le32(_ value: Int) -> [UInt8] { le24(value) + [UInt8(value >> 24 & 0xFF)] }
}
