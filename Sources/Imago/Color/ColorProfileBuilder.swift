#if os(Linux)
import CImagoCodecs
import Foundation

/// ICC profiles built by Little CMS from colour tags (CICP code points, a PNG's `gAMA` and `cHRM`),
/// each built once: Little CMS stamps a profile with the time it was made, so the same tags built
/// twice would be two profiles to ``ColorTransformCache``.
enum ColorProfileBuilder {
    struct Recipe: Hashable, Sendable {
        var points: [Double]
        var curve: ColorCodePoints.TransferCurve
        var name: String
    }

    /// Profiles built so far; there are few distinct recipes (a table of code points, and the
    /// `gAMA`/`cHRM` values files carry), and the dictionary is emptied past 64.
    private static let built = Locked<[Recipe: Result<ColorProfile, ColorProfile.Failure>]>([:])

    static func profile(_ recipe: Recipe) -> Result<ColorProfile, ColorProfile.Failure> {
        if let found = built.withLock({ $0[recipe] }) { return found }
        let result = make(recipe)
        built.withLock { cache in
            if cache.count >= 64 { cache.removeAll() }
            cache[recipe] = result
        }
        return result
    }

    private static func make(_ recipe: Recipe) -> Result<ColorProfile, ColorProfile.Failure> {
        let (transfer, gamma): (imago_transfer, Double) =
            switch recipe.curve {
            case .sRGB: (IMAGO_TRANSFER_SRGB, 0)
            case .linear: (IMAGO_TRANSFER_LINEAR, 1)
            case .gamma(let value): (IMAGO_TRANSFER_GAMMA, value)
            }
        guard recipe.points.count == 8 else { return .failure(ColorProfile.Failure(description: "no chromaticities")) }
        var message = [CChar](repeating: 0, count: 256)
        var size = 0
        let bytes = recipe.points.withUnsafeBufferPointer { points in
            message.withUnsafeMutableBufferPointer { text in
                imago_color_rgb_profile_create(
                    points.baseAddress, transfer, gamma, recipe.name, &size, text.baseAddress, text.count)
            }
        }
        guard let bytes else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(ColorProfile.Failure(description: "the colour tags make no profile: \(text)"))
        }
        defer { imago_color_free(bytes) }
        do {
            return .success(try ColorProfile(iccData: Data(bytes: bytes, count: size)))
        } catch {
            return .failure(error)
        }
    }
}
#endif
