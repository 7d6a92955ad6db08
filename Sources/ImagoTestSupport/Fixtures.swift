import Foundation
import Imago
import ImagoSamples

/// Real images made on the spot for tests and benchmarks: the synthetic pictures (gradients and
/// shapes) of ImagoSamples' `SamplePicture`, encoded by the library's own encoders.
public enum Fixtures {
    /// A deterministic picture of `width` x `height`, different for every `seed`; with
    /// `transparent`, the corners fade to transparent (`SamplePicture.bitmap`, ImagoSamples).
    public static func picture(width: Int, height: Int, seed: Int = 0, transparent: Bool = false) -> Bitmap {
        SamplePicture.bitmap(width: width, height: height, seed: seed, transparent: transparent)
    }

    /// ``picture(width:height:seed:transparent:)`` encoded as a JPEG.
    public static func jpeg(width: Int, height: Int, seed: Int = 0, quality: Double = 0.85) throws -> Data {
        try SamplePicture.jpeg(width: width, height: height, seed: seed, quality: quality)
    }

    /// ``picture(width:height:seed:transparent:)`` encoded as a PNG.
    public static func png(width: Int, height: Int, seed: Int = 0, transparent: Bool = false) throws -> Data {
        try SamplePicture.png(width: width, height: height, seed: seed, transparent: transparent)
    }
}

/// The sample pictures' generator, for tests that draw their own sequences.
public typealias SplitMix = ImagoSamples.SplitMix
