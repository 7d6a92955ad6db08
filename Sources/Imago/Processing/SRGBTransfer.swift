import Foundation

/// sRGB's transfer function as tables: 8-bit stored values to linear light and back. Display P3
/// shares this curve; pixels kept in a profile with another one (Adobe RGB, ProPhoto, linear) are
/// not decoded through it (``ImageContainer/pixelsHaveSRGBTransfer``).
enum SRGBTransfer {
    /// Linear light (0...1) of each 8-bit stored value.
    static let linear: [Float] = (0..<256).map { value in Float(decoded(Double(value) / 255)) }

    /// Linear light (0...1) of the stored value `v` (0...1).
    static func decoded(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Steps of ``encoded``: linear light 0...1 in 65,536 steps, fine enough that every 8-bit
    /// value comes back exactly from its own linear value (at the dark end sRGB's slope is 12.92,
    /// so a step is 0.05 of a level).
    static let encodedSteps = 65_535

    /// The 8-bit stored value, rounded, of linear light `index / encodedSteps`.
    static let encoded: [UInt8] = (0...encodedSteps).map { index in
        let v = Double(index) / Double(encodedSteps)
        let stored = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return UInt8(min(max((stored * 255).rounded(), 0), 255))
    }

}
