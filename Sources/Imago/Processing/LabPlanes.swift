import Foundation

/// An image's CIE L*a*b* (D65) as three planes of floats, from its sRGB pixels (alpha ignored):
/// what perceptual analyses such as ``ImageProcessors/SmartCrop`` measure.
struct LabPlanes {
    let width: Int
    let height: Int
    /// L*, 0...100.
    var lightness: [Float]
    var a: [Float]
    var b: [Float]

    init(_ bitmap: Bitmap) {
        width = bitmap.width
        height = bitmap.height
        let count = width * height
        var lightness = [Float](repeating: 0, count: count)
        var a = [Float](repeating: 0, count: count)
        var b = [Float](repeating: 0, count: count)
        let linear = SRGBTransfer.linear
        for index in 0..<count {
            let red = linear[Int(bitmap.pixels[index * 4])]
            let green = linear[Int(bitmap.pixels[index * 4 + 1])]
            let blue = linear[Int(bitmap.pixels[index * 4 + 2])]
            // sRGB primaries to XYZ, relative to the D65 white.
            let x = (0.4124 * red + 0.3576 * green + 0.1805 * blue) / 0.95047
            let y = 0.2126 * red + 0.7152 * green + 0.0722 * blue
            let z = (0.0193 * red + 0.1192 * green + 0.9505 * blue) / 1.08883
            let (fx, fy, fz) = (Self.f(x), Self.f(y), Self.f(z))
            lightness[index] = 116 * fy - 16
            a[index] = 500 * (fx - fy)
            b[index] = 200 * (fy - fz)
        }
        self.lightness = lightness
        self.a = a
        self.b = b
    }

    private static func f(_ t: Float) -> Float {
        t > 216 / 24389 ? Float(cbrt(Double(t))) : (24389 / 27 * t + 16) / 116
    }
}
