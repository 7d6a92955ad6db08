#if os(Linux)
extension ProcessingOptions {
    /// imgproxy's `watermark` (`wm:OPACITY:POSITION:X_OFFSET:Y_OFFSET:SCALE`): an image laid over
    /// the whole result (padding and extension included), last of all.
    public struct Watermark: Sendable, Hashable {
        /// Where the watermark sits: a compass point or the centre, or repeated over the whole
        /// result (``replicate``).
        public enum Position: String, Sendable, Hashable, CaseIterable {
            case center = "ce"
            case north = "no"
            case south = "so"
            case east = "ea"
            case west = "we"
            case northEast = "noea"
            case northWest = "nowe"
            case southEast = "soea"
            case southWest = "sowe"
            /// Tiled over the whole result from its centre; the offsets are the space between tiles.
            case replicate = "re"
        }

        /// 0...1, multiplied by the server's base opacity (`IMGPROXY_WATERMARK_OPACITY`); 0 draws
        /// nothing.
        public var opacity: Double
        /// Default: ``Position/center``.
        public var position: Position
        /// The horizontal offset from the edge the position names (pixels times the ratio from a
        /// magnitude of 1, a share of the result's width below); for ``Position/replicate``, the
        /// space between tiles. Default: 0.
        public var x: Double
        /// The vertical offset, as ``x``. Default: 0.
        public var y: Double
        /// The watermark's size as a share of the result's: it is fitted (enlarged if need be) into
        /// the result's width and height times this; 0 keeps its own size. Default: 0.
        public var scale: Double

        public init(opacity: Double, position: Position = .center, x: Double = 0, y: Double = 0, scale: Double = 0) {
            self.opacity = opacity
            self.position = position
            self.x = x
            self.y = y
            self.scale = scale
        }

        var canonical: String { "\(opacity):\(position.rawValue):\(x):\(y):\(scale)" }
    }
}
#endif
