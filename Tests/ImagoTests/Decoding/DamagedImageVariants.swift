import Foundation
import ImagoTestSupport

@testable import Imago

/// Damaged copies of the test images, made the way files break in the wild: cut short, a byte of
/// entropy-coded or filtered data flipped, a checksum altered, a frame's data cut short, an
/// extension's block size changed. The browser-parity test loads each in Chromium and in Imago.
struct DamagedImageVariant: Sendable {
    var name: String
    var format: ImageFormat
    var data: Data

    var fileExtension: String {
        switch format {
        case .jpeg: "jpg"
        case .gif: "gif"
        default: "png"
        }
    }

    var contentType: String {
        switch format {
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        default: "image/png"
        }
    }

    static func all() throws -> [DamagedImageVariant] {
        var variants: [DamagedImageVariant] = []
        let jpegs: [(String, Data)] = [
            ("jpeg-baseline", try Fixture.named("jpeg-baseline").data()),
            ("jpeg-progressive", try Fixture.named("jpeg-progressive").data()),
            ("jpeg-cmyk", try Fixture.named("jpeg-cmyk").data()),
            ("jpeg-gray", try Fixture.named("jpeg-gray").data()),
            ("photo-1024", try Fixture.data("thumbnail-photo.jpg")),
            ("photo-320", try Fixtures.jpeg(width: 320, height: 240, seed: 9)),
        ]
        for (name, data) in jpegs {
            variants += cuts(name, .jpeg, data)
            let bytes = [UInt8](data)
            if let scan = JPEGMarkers.scanData(in: bytes), scan.count > 8 {
                var flipped = bytes
                flipped[scan.lowerBound + scan.count / 2] ^= 0x55
                variants.append(DamagedImageVariant(name: "\(name)-huffman-flip", format: .jpeg, data: Data(flipped)))
                var garbage = bytes
                for index in (scan.lowerBound + scan.count / 3)..<min(scan.lowerBound + scan.count / 3 + 32, scan.upperBound) {
                    garbage[index] = UInt8(truncatingIfNeeded: index &* 73) | 0x01
                }
                variants.append(DamagedImageVariant(name: "\(name)-huffman-garbage", format: .jpeg, data: Data(garbage)))
            }
            if let sos = JPEGMarkers.offsets(of: 0xDA, in: bytes).first {
                var undefined = bytes
                undefined[sos + 6] = 0x33
                variants.append(DamagedImageVariant(name: "\(name)-undefined-table", format: .jpeg, data: Data(undefined)))
            }
            let scans = JPEGMarkers.offsets(of: 0xDA, in: bytes)
            if scans.count >= 3 {
                var progression = bytes
                let components = Int(progression[scans[2] + 4])
                progression[scans[2] + 5 + 2 * components] = 0x3F
                progression[scans[2] + 6 + 2 * components] = 0x01
                variants.append(DamagedImageVariant(name: "\(name)-bad-progression", format: .jpeg, data: Data(progression)))
            }
        }

        let gifs: [(String, Data)] = [
            ("gif-still", try Fixture.named("gif-still").data()),
            ("gif-animated", try Fixture.named("gif-animated").data()),
            ("gif-interlaced", try Fixture.named("gif-interlaced").data()),
            ("gif-transparent", try Fixture.named("gif-transparent").data()),
        ]
        for (name, data) in gifs {
            variants += cuts(name, .gif, data)
            let bytes = [UInt8](data)
            if let control = bytes.indices.dropLast(2).first(where: { bytes[$0] == 0x21 && bytes[$0 + 1] == 0xF9 }) {
                for size: UInt8 in [3, 5] {
                    var changed = bytes
                    changed[control + 2] = size
                    variants.append(DamagedImageVariant(name: "\(name)-gce-size-\(size)", format: .gif, data: Data(changed)))
                }
            }
        }
        var short = GIFBuilder(width: 30, height: 30)
        short.image(width: 30, height: 30, indices: [UInt8](repeating: 2, count: 899))
        variants.append(DamagedImageVariant(name: "gif-one-pixel-short", format: .gif, data: short.data))
        var cutFrame = GIFBuilder(width: 30, height: 30)
        cutFrame.image(width: 30, height: 30, indices: [UInt8](repeating: 1, count: 450))
        variants.append(DamagedImageVariant(name: "gif-half-frame", format: .gif, data: cutFrame.data))
        var codeSizeZero = GIFBuilder(width: 4, height: 4)
        codeSizeZero.append([0x2C, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 2, 0, 0, 0])
        variants.append(DamagedImageVariant(name: "gif-lzw-code-size-0", format: .gif, data: codeSizeZero.data))
        var larger = GIFBuilder(width: 8, height: 8)
        larger.frame(x: 4, y: 4, width: 16, height: 16, index: 2)
        variants.append(DamagedImageVariant(name: "gif-frame-larger-than-canvas", format: .gif, data: larger.data))
        var animation = GIFBuilder(width: 8, height: 8)
        for index in [1, 2, 3, 1] as [UInt8] { animation.frame(width: 8, height: 8, index: index) }
        variants.append(DamagedImageVariant(name: "gif-animation-cut", format: .gif, data: Data(animation.bytes.dropLast(20))))

        let pngs: [(String, Data)] = [
            ("png-rgba", try Fixture.named("png-rgba").data()),
            ("png-palette", try Fixture.named("png-palette").data()),
            ("png-rgba-interlaced", try Fixture.named("png-rgba-interlaced").data()),
        ]
        for (name, data) in pngs {
            variants += cuts(name, .png, data)
            var bytes = [UInt8](data)
            if let idat = StoredPNG.chunk("IDAT", in: bytes) {
                bytes[idat.upperBound + 3] ^= 0xFF  // the CRC's last byte
                variants.append(DamagedImageVariant(name: "\(name)-idat-crc", format: .png, data: Data(bytes)))
            }
        }
        let stored = StoredPNG.encode(Fixtures.picture(width: 64, height: 48, seed: 3, transparent: true))
        variants += cuts("png-stored", .png, stored)
        variants.append(DamagedImageVariant(
            name: "png-stored-filter-flip", format: .png, data: StoredPNG.encode(
                Fixtures.picture(width: 64, height: 48, seed: 3, transparent: true), badFilterRow: 20)))
        return variants
    }

    /// The file cut at several points: early, in the middle, late, and without its last 2 bytes.
    static func cuts(_ name: String, _ format: ImageFormat, _ data: Data) -> [DamagedImageVariant] {
        let points = [0.25, 0.5, 0.75, 0.95].map { Int(Double(data.count) * $0) } + [data.count - 2]
        return points.map { DamagedImageVariant(name: "\(name)-cut-\($0)", format: format, data: data.prefix($0)) }
    }
}

/// Writes PNGs whose zlib stream uses stored (uncompressed) blocks (``PNGBuilder``), so a test
/// can damage a filter byte in place and still give the file valid checksums.
enum StoredPNG {
    /// `bitmap` as an 8-bit RGBA PNG; `badFilterRow` gets filter type 7, which does not exist.
    static func encode(_ bitmap: Bitmap, badFilterRow: Int? = nil) -> Data {
        var builder = PNGBuilder(bitmap)
        if let badFilterRow { builder.filterBytes[badFilterRow] = 7 }
        return builder.data
    }

    /// The data of the first chunk of `type` in `bytes`.
    static func chunk(_ type: String, in bytes: [UInt8]) -> Range<Int>? {
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let name = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard offset + 12 + length <= bytes.count else { return nil }
            if name == type { return (offset + 8)..<(offset + 8 + length) }
            offset += 12 + length
        }
        return nil
    }
}
