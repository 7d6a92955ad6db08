import Foundation

extension Resampler {
    /// The filter shapes, as functions of the distance in (scaled) source pixels.
    enum Kernel {
        case lanczos3
        case catmullRom

        /// Beyond this distance the kernel is zero.
        var radius: Double {
            switch self {
            case .lanczos3: 3
            case .catmullRom: 2
            }
        }

        func value(at distance: Double) -> Double {
            let x = distance.magnitude
            switch self {
            case .lanczos3:
                guard x < 3 else { return 0 }
                guard x > 1e-8 else { return 1 }
                // 3 sin(πx) sin(πx/3) / (πx)², with sin(πx) = sin(3θ) = 3 sin θ − 4 sin³ θ for
                // θ = πx/3: one sine instead of two, as the tables hold thousands of taps.
                let pix = Double.pi * x
                let third = sin(pix / 3)
                return 3 * (3 * third - 4 * third * third * third) * third / (pix * pix)
            case .catmullRom:
                if x < 1 { return (1.5 * x - 2.5) * x * x + 1 }
                if x < 2 { return ((-0.5 * x + 2.5) * x - 4) * x + 2 }
                return 0
            }
        }
    }
}
