#if os(Linux)
extension ProcessingOptions {
    /// Where a crop cuts, or where an image sits on a larger canvas: imgproxy's `gravity`
    /// (`g:TYPE:X:Y`, `g:fp:X:Y`, `g:sm`).
    public struct Gravity: Sendable, Hashable {
        /// The edge, corner or point the crop keeps.
        public enum Anchor: String, Sendable, Hashable, CaseIterable {
            case north = "no"
            case south = "so"
            case east = "ea"
            case west = "we"
            case northEast = "noea"
            case northWest = "nowe"
            case southEast = "soea"
            case southWest = "sowe"
            case center = "ce"
            /// ``Gravity/x`` and ``Gravity/y`` (0...1) name the point the crop is centred on.
            case focusPoint = "fp"
            /// The most interesting part of the image, as libvips' `smartcrop` finds it by
            /// attention (edges, skin tones, saturated colour). No offsets.
            case smart = "sm"
        }

        public var anchor: Anchor
        /// The horizontal offset from the anchor: pixels when its magnitude is at least 1, a share
        /// of the image's width below; for ``Anchor/focusPoint``, the point's x in 0...1. Default: 0.
        public var x: Double
        /// The vertical offset (or the focus point's y), as ``x``. Default: 0.
        public var y: Double

        public init(_ anchor: Anchor, x: Double = 0, y: Double = 0) {
            self.anchor = anchor
            self.x = x
            self.y = y
        }

        /// Centre, no offsets: imgproxy's default.
        public static let center = Gravity(.center)

        var canonical: String { anchor == .smart ? "sm" : "\(anchor.rawValue):\(x):\(y)" }
    }

    /// imgproxy's `crop` (`c:WIDTH:HEIGHT:GRAVITY…`): the part of the source kept before the
    /// resize. A side of at least 1 is in pixels, below 1 a share of the source's side, 0 the
    /// whole side.
    public struct Crop: Sendable, Hashable {
        public var width: Double
        public var height: Double
        /// Where the crop cuts; `nil`: the path's ``ProcessingOptions/gravity``.
        public var gravity: Gravity?

        public init(width: Double, height: Double, gravity: Gravity? = nil) {
            self.width = width
            self.height = height
            self.gravity = gravity
        }
    }

    /// imgproxy's `padding` (`pd:TOP:RIGHT:BOTTOM:LEFT`, CSS order and shorthand), in CSS pixels.
    public struct Padding: Sendable, Hashable {
        public var top: Int
        public var right: Int
        public var bottom: Int
        public var left: Int

        public init(top: Int, right: Int, bottom: Int, left: Int) {
            self.top = top
            self.right = right
            self.bottom = bottom
            self.left = left
        }

        /// `left + right`.
        public var horizontal: Int { left + right }
        /// `top + bottom`.
        public var vertical: Int { top + bottom }
    }

    /// imgproxy's `extend` (`ex:1:GRAVITY…`): a result smaller than the asked size is placed on a
    /// canvas of that size, filled with the background.
    public struct Extend: Sendable, Hashable {
        /// Where the image sits on the canvas (never ``Gravity/Anchor/smart``). Default: centre.
        public var gravity: Gravity

        public init(gravity: Gravity = .center) {
            self.gravity = gravity
        }
    }
}
#endif
