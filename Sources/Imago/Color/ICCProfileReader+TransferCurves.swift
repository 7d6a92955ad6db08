import Foundation

extension ICCProfileReader {
    /// Where the tone curves are compared with sRGB's, in stored values (0...1).
    static let transferSamples: [Double] = [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1]
    /// The largest difference in linear light (0...1) still taken for sRGB's curve: about half an
    /// 8-bit level in the mid-tones. Gamma 2.2 differs from sRGB by twice that.
    static let transferTolerance = 0.002

    /// Whether the RGB profile `data` encodes its pixels with sRGB's transfer curve: its red, green
    /// and blue tone curves (`rTRC`, `gTRC`, `bTRC`, each a `curv` or `para` tag) all within
    /// ``transferTolerance`` of sRGB's. Display P3's do; Adobe RGB's (gamma 2.2), ProPhoto's
    /// (1.8) and linear ones do not. `false` for a profile without the three curves (one built on
    /// lookup tables) or whose curves cannot be read: every offset and count is checked first.
    static func hasSRGBTransfer(_ data: Data) -> Bool {
        let bytes = ByteReader(data)
        guard let count = bytes.uint32BE(at: headerSize).flatMap({ Int(exactly: $0) }) else { return false }
        let tableEnd = count.multipliedReportingOverflow(by: 12)
        guard !tableEnd.overflow, headerSize + 4 + tableEnd.partialValue <= bytes.count else { return false }
        var matched = Set<String>()
        for index in 0..<count {
            let entry = headerSize + 4 + index * 12
            guard let signature = bytes.ascii(at: entry, count: 4), ["rTRC", "gTRC", "bTRC"].contains(signature) else { continue }
            guard let offset = bytes.uint32BE(at: entry + 4).flatMap({ Int(exactly: $0) }),
                let size = bytes.uint32BE(at: entry + 8).flatMap({ Int(exactly: $0) }),
                case let (end, overflow) = offset.addingReportingOverflow(size), !overflow, size >= 12, end <= bytes.count
            else { return false }
            for x in transferSamples {
                guard let y = toneCurve(bytes, offset: offset, size: size, at: x), y.isFinite,
                    abs(y - SRGBTransfer.decoded(x)) <= transferTolerance
                else { return false }
            }
            matched.insert(signature)
        }
        return matched.count == 3
    }

    /// The linear value of stored value `x` through the `curv` or `para` tag of `size` bytes at
    /// `offset`; `nil` for another type or a tag too short for what it declares.
    private static func toneCurve(_ bytes: ByteReader, offset: Int, size: Int, at x: Double) -> Double? {
        switch bytes.ascii(at: offset, count: 4) {
        case "curv":
            guard let count = bytes.uint32BE(at: offset + 8).flatMap({ Int(exactly: $0) }) else { return nil }
            switch count {
            case 0: return x
            case 1:
                guard let gamma = bytes.uint16BE(at: offset + 12) else { return nil }
                return pow(x, Double(gamma) / 256)
            default:
                let (length, overflow) = count.multipliedReportingOverflow(by: 2)
                guard !overflow, length <= size - 12 else { return nil }
                let position = x * Double(count - 1)
                let low = min(Int(position), count - 1)
                let high = min(low + 1, count - 1)
                guard let a = bytes.uint16BE(at: offset + 12 + 2 * low), let b = bytes.uint16BE(at: offset + 12 + 2 * high)
                else { return nil }
                let fraction = position - Double(low)
                return (Double(a) + (Double(b) - Double(a)) * fraction) / 65535
            }
        case "para":
            guard let type = bytes.uint16BE(at: offset + 8), type <= 4 else { return nil }
            let counts = [1, 3, 4, 5, 7]
            let count = counts[Int(type)]
            guard 12 + 4 * count <= size else { return nil }
            var p: [Double] = []
            for index in 0..<count {
                guard let raw = bytes.uint32BE(at: offset + 12 + 4 * index) else { return nil }
                p.append(Double(Int32(bitPattern: raw)) / 65536)
            }
            let g = p[0]
            switch type {
            case 0: return pow(x, g)
            case 1, 2:
                guard p[1] != 0 else { return nil }
                let c = type == 2 ? p[3] : 0
                return x >= -p[2] / p[1] ? pow(p[1] * x + p[2], g) + c : c
            case 3: return x >= p[4] ? pow(p[1] * x + p[2], g) : p[3] * x
            default: return x >= p[4] ? pow(p[1] * x + p[2], g) + p[5] : p[3] * x + p[6]
            }
        default:
            return nil
        }
    }
}
