import Foundation

/// The colour a file declares for its pixels, read from its bytes before decoding: an ICC profile
/// (JPEG `APP2`, PNG `iCCP`, WebP `ICCP`, HEIF/AVIF `colr` of type `prof` or `rICC`), coding-independent
/// code points (HEIF/AVIF `colr` of type `nclx`, PNG `cICP`), a PNG's `sRGB` chunk, or its `gAMA`
/// and `cHRM`.
enum EmbeddedColor: Sendable, Hashable {
    case icc(Data)
    case codePoints(ColorCodePoints)
    /// PNG `gAMA` (the encoding gamma, such as 0.45455) and `cHRM` (white, red, green, blue x, y),
    /// either of which may be missing.
    case chromaticities(gamma: Double?, points: [Double]?)
    /// Declared sRGB: nothing to convert.
    case sRGB

    /// What a file declares, and what was wrong with what it declared (a declaration that cannot
    /// be read is dropped: the pixels are then read as sRGB, and the problem becomes a repair).
    struct Reading: Sendable, Hashable {
        var color: EmbeddedColor?
        var problems: [String] = []
    }

    /// Reads the colour declaration of `data` in `format`; profiles larger than `maximumProfileSize`
    /// bytes are refused as a problem, never read.
    static func read(_ data: Data, format: ImageFormat, maximumProfileSize: Int) -> Reading {
        switch format {
        case .jpeg: return readJPEG(data, maximumProfileSize: maximumProfileSize)
        case .png: return readPNG(data, maximumProfileSize: maximumProfileSize)
        case .webp: return readWebP(data, maximumProfileSize: maximumProfileSize)
        case .heif, .avif:
            guard let header = try? ISOBMFFHeader.parse(data) else { return Reading() }
            return read(header, maximumProfileSize: maximumProfileSize)
        default: return Reading()
        }
    }

    /// The colour of a HEIF or AVIF file whose boxes were already read.
    static func read(_ header: ISOBMFFHeader, maximumProfileSize: Int) -> Reading {
        if case .icc(let profile) = header.color, profile.count > maximumProfileSize {
            return Reading(color: nil, problems: [tooLarge(profile.count, maximumProfileSize)])
        }
        return Reading(color: header.color)
    }

    static func tooLarge(_ size: Int, _ limit: Int) -> String {
        "the colour profile of \(size) bytes is larger than DecodingLimits.maximumColorProfileSize (\(limit))"
    }
}
