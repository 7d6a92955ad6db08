import Foundation
import Imago

/// How far apart two images are as people see them: the mean CIEDE2000 colour difference of their
/// pixels, and their PSNR, for tests that compare Imago's output with a reference (Little CMS,
/// libvips, a browser's screenshot).
///
/// Pixels are read as sRGB (D65), composited over white by their alpha; a mean ΔE2000 under about
/// 1 is invisible side by side, and 2–3 is a difference one notices when looking for it.
public enum ColorDifference {
    /// The mean CIEDE2000 difference of the two bitmaps' pixels. Both must have the same size.
    public static func meanCIEDE2000(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height, "compare bitmaps of one size: \(a) against \(b)")
        let count = a.width * a.height
        guard count > 0 else { return 0 }
        var total = 0.0
        for pixel in 0..<count {
            total += ciede2000(lab(a, pixel), lab(b, pixel))
        }
        return total / Double(count)
    }

    /// PSNR in dB over the colour channels composited over white; infinity for equal images.
    public static func peakSignalToNoise(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height, "compare bitmaps of one size: \(a) against \(b)")
        var squares = 0.0
        let count = a.width * a.height
        for pixel in 0..<count {
            let x = overWhite(a, pixel), y = overWhite(b, pixel)
            squares += (x.0 - y.0) * (x.0 - y.0) + (x.1 - y.1) * (x.1 - y.1) + (x.2 - y.2) * (x.2 - y.2)
        }
        let mean = squares / Double(max(count * 3, 1))
        return mean == 0 ? .infinity : 10 * log10(255 * 255 / mean)
    }

    /// The pixel's R, G, B (0...255) composited over white. Tuples, not arrays: nothing is
    /// allocated per pixel.
    private static func overWhite(_ bitmap: Bitmap, _ pixel: Int) -> (Double, Double, Double) {
        let index = pixel * 4
        let alpha = Double(bitmap.pixels[index + 3]) / 255
        func channel(_ offset: Int) -> Double {
            let value = Double(bitmap.pixels[index + offset])
            switch bitmap.alphaMode {
            case .opaque: return value
            case .straight: return value * alpha + 255 * (1 - alpha)
            case .premultiplied: return value + 255 * (1 - alpha)
            }
        }
        return (channel(0), channel(1), channel(2))
    }

    /// CIE L*a*b* (D65) of an sRGB pixel.
    private static func lab(_ bitmap: Bitmap, _ pixel: Int) -> (Double, Double, Double) {
        func linear(_ value: Double) -> Double {
            let c = value / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let encoded = overWhite(bitmap, pixel)
        let (r, g, b) = (linear(encoded.0), linear(encoded.1), linear(encoded.2))
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    /// CIEDE2000 (Sharma, Wu and Dalal's formulation), kL = kC = kH = 1.
    static func ciede2000(_ first: (Double, Double, Double), _ second: (Double, Double, Double)) -> Double {
        let (l1, a1, b1) = first, (l2, a2, b2) = second
        let c1 = (a1 * a1 + b1 * b1).squareRoot(), c2 = (a2 * a2 + b2 * b2).squareRoot()
        let meanC = (c1 + c2) / 2
        let meanC7 = pow(meanC, 7)
        let g = 0.5 * (1 - (meanC7 / (meanC7 + pow(25, 7))).squareRoot())
        let a1p = a1 * (1 + g), a2p = a2 * (1 + g)
        let c1p = (a1p * a1p + b1 * b1).squareRoot(), c2p = (a2p * a2p + b2 * b2).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let angle = atan2(b, a) * 180 / .pi
            return angle < 0 ? angle + 360 : angle
        }
        let h1p = hue(b1, a1p), h2p = hue(b2, a2p)
        let deltaL = l2 - l1
        let deltaC = c2p - c1p
        var deltah = 0.0
        if c1p * c2p != 0 {
            deltah = h2p - h1p
            if deltah > 180 { deltah -= 360 } else if deltah < -180 { deltah += 360 }
        }
        let deltaH = 2 * (c1p * c2p).squareRoot() * sin(deltah / 2 * .pi / 180)
        let meanL = (l1 + l2) / 2
        let meanCp = (c1p + c2p) / 2
        var meanH = h1p + h2p
        if c1p * c2p != 0 {
            if abs(h1p - h2p) <= 180 { meanH /= 2 } else if h1p + h2p < 360 { meanH = (meanH + 360) / 2 } else { meanH = (meanH - 360) / 2 }
        }
        let t = 1 - 0.17 * cos((meanH - 30) * .pi / 180) + 0.24 * cos(2 * meanH * .pi / 180)
            + 0.32 * cos((3 * meanH + 6) * .pi / 180) - 0.20 * cos((4 * meanH - 63) * .pi / 180)
        let deltaTheta = 30 * exp(-pow((meanH - 275) / 25, 2))
        let meanCp7 = pow(meanCp, 7)
        let rc = 2 * (meanCp7 / (meanCp7 + pow(25, 7))).squareRoot()
        let lShift = (meanL - 50) * (meanL - 50)
        let sl = 1 + 0.015 * lShift / (20 + lShift).squareRoot()
        let sc = 1 + 0.045 * meanCp
        let sh = 1 + 0.015 * meanCp * t
        let rt = -sin(2 * deltaTheta * .pi / 180) * rc
        let l = deltaL / sl, c = deltaC / sc, h = deltaH / sh
        return (l * l + c * c + h * h + rt * c * h).squareRoot()
    }
}
