/// Coding-independent code points for video signal type identification (ITU-T H.273): how HEIF
/// and AVIF `colr` boxes of type `nclx`, and PNG's `cICP` chunk, name a colour space without a
/// profile. Imago builds an ICC profile from the primaries and transfer characteristics; the matrix
/// coefficients are the codec's business (libavif and libheif use them to turn YUV into RGB).
struct ColorCodePoints: Sendable, Hashable, CustomStringConvertible {
    var primaries: Int
    var transfer: Int
    var matrix: Int
    var fullRange: Bool

    /// `CICP 12/13/6`.
    var description: String { "CICP \(primaries)/\(transfer)/\(matrix)" }

    /// White, red, green and blue (x, y) of the primaries, and their name; nil for a code point
    /// Imago does not know. 2 (unspecified) is read as BT.709, as browsers do.
    var chromaticities: (points: [Double], name: String)? {
        switch primaries {
        case 1, 2: ([0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06], "BT.709")
        case 4: ([0.310, 0.316, 0.67, 0.33, 0.21, 0.71, 0.14, 0.08], "BT.470 M")
        case 5: ([0.3127, 0.3290, 0.64, 0.33, 0.29, 0.60, 0.15, 0.06], "BT.601 625")
        case 6, 7: ([0.3127, 0.3290, 0.630, 0.340, 0.310, 0.595, 0.155, 0.070], "BT.601 525")
        case 9: ([0.3127, 0.3290, 0.708, 0.292, 0.170, 0.797, 0.131, 0.046], "BT.2020")
        case 11: ([0.314, 0.351, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060], "DCI-P3")
        case 12: ([0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060], "Display P3")
        default: nil
        }
    }

    /// The transfer curve; nil for one Imago does not convert (PQ and HLG, which need tone mapping,
    /// and the rare others). 2 (unspecified) and the camera curves of BT.709, BT.601 and BT.2020
    /// (1, 6, 14, 15) are read as sRGB, as Chromium shows images (the BT.709 inverse OETF is 3.7
    /// ΔE2000 away from what it shows).
    var transferCurve: (curve: TransferCurve, name: String)? {
        switch transfer {
        case 13: (.sRGB, "sRGB transfer")
        case 2, 1, 6, 14, 15: (.sRGB, "transfer \(transfer) read as sRGB")
        case 4: (.gamma(2.2), "gamma 2.2")
        case 5: (.gamma(2.8), "gamma 2.8")
        case 8: (.linear, "linear")
        default: nil
        }
    }

    /// Whether these code points are sRGB itself (BT.709 primaries, sRGB transfer): nothing to convert.
    var isSRGB: Bool { (primaries == 1 || primaries == 2) && (transfer == 13 || transfer == 2) }

    /// The transfer curves a profile is built with.
    enum TransferCurve: Sendable, Hashable {
        case sRGB, linear
        case gamma(Double)
    }
}
