import Foundation

@testable import Imago

/// Writes 16-bit PNG files (gray, gray+alpha, RGB, RGBA; Adam7 or not) from their samples, with
/// colour chunks before the pixels: what the 16-bit decoding tests feed the real libpng.
struct DeepPNGWriter {
    /// PNG colour types of 16-bit files.
    enum Layout: UInt8, CaseIterable, CustomStringConvertible, Sendable {
        case gray = 0, rgb = 2, grayAlpha = 4, rgba = 6

        /// Samples a pixel.
        var channels: Int {
            switch self {
            case .gray: 1
            case .grayAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }

        var hasAlpha: Bool { self == .grayAlpha || self == .rgba }
        var isGray: Bool { self == .gray || self == .grayAlpha }
        var description: String { "\(self == .gray ? "gray" : self == .grayAlpha ? "gray+alpha" : self == .rgb ? "RGB" : "RGBA")16" }
    }

    let width: Int
    let height: Int
    let layout: Layout
    /// Ancillary chunks written before IDAT (gAMA, cHRM, iCCP…).
    var chunks: [(String, [UInt8])] = []
    /// Adam7: the pixels pass by pass.
    var interlaced = false

    /// The file whose row `y` holds `row(y)`: `width * layout.channels` samples.
    func data(row: (Int) -> [UInt16]) throws -> Data {
        var raw = [UInt8]()
        raw.reserveCapacity(height * (1 + width * layout.channels * 2))
        let rows = interlaced ? (0..<height).map(row) : []
        let passes = interlaced ? Adam7Progress.passes : [(column: 0, columnStep: 1, row: 0, rowStep: 1)]
        for pass in passes {
            let columns = Array(stride(from: pass.column, to: width, by: pass.columnStep))
            guard !columns.isEmpty else { continue }
            for y in stride(from: pass.row, to: height, by: pass.rowStep) {
                let samples = interlaced ? rows[y] : row(y)
                precondition(samples.count == width * layout.channels)
                raw.append(0)
                let channels = layout.channels
                let start = raw.count
                raw += [UInt8](repeating: 0, count: columns.count * channels * 2)
                raw.withUnsafeMutableBufferPointer { out in
                    samples.withUnsafeBufferPointer { input in
                        var offset = start
                        for x in columns {
                            for channel in 0..<channels {
                                let sample = input[x * channels + channel]
                                out[offset] = UInt8(truncatingIfNeeded: sample >> 8)
                                out[offset + 1] = UInt8(truncatingIfNeeded: sample)
                                offset += 2
                            }
                        }
                    }
                }
            }
        }
        guard let compressed = ColorProfileEmbedder.deflate(Data(raw)) else { throw CancellationError() }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += PNGBuilder.chunk(
            "IHDR", PNGBuilder.be32(UInt32(width)) + PNGBuilder.be32(UInt32(height)) + [16, layout.rawValue, 0, 0, interlaced ? 1 : 0])
        for (type, payload) in chunks { bytes += PNGBuilder.chunk(type, payload) }
        bytes += PNGBuilder.chunk("IDAT", compressed)
        bytes += PNGBuilder.chunk("IEND", [])
        return Data(bytes)
    }

    /// A `gAMA` chunk: the encoding gamma (1/2.2 for most files; 1 for linear light).
    static func gamma(_ gamma: Double) -> (String, [UInt8]) {
        ("gAMA", PNGBuilder.be32(UInt32((gamma * 100_000).rounded())))
    }

    /// An `iCCP` chunk holding `profile`.
    static func iccp(_ profile: Data) -> (String, [UInt8]) {
        ("iCCP", Array("ICC Profile".utf8) + [0, 0] + (ColorProfileEmbedder.deflate(profile) ?? []))
    }

    /// The `cHRM` chunk of Adobe RGB (1998): D65 white, its wide primaries.
    static let adobeChromaticities: (String, [UInt8]) =
        ("cHRM", [31_270, 32_900, 64_000, 33_000, 21_000, 71_000, 15_000, 6_000].flatMap { PNGBuilder.be32(UInt32($0)) })
}
