extension ImageProcessors {
    /// Lays one image over another, once or repeated (imgproxy's `watermark`): the watermark's
    /// pixels, their alpha times ``opacity``, composited "over" the image.
    ///
    /// The blend is in the image's own 8-bit sRGB values, as libvips (and so imgproxy) and
    /// browsers blend, with premultiplied arithmetic: a translucent watermark pixel weighs its
    /// colour by its alpha, a translucent image pixel keeps the alpha the two make together, and
    /// a premultiplied image stays premultiplied. An opaque image stays opaque. The output has the
    /// image's size: whatever of the watermark falls outside is not drawn.
    public struct Watermark: BitmapProcessing, Hashable {
        /// Where the watermark goes.
        public enum Placement: Sendable, Hashable {
            /// Its top-left pixel at column `x`, row `y` of the image; either may be negative or
            /// past the edge, which draws only the part inside.
            case at(x: Int, y: Int)
            /// Repeated across and down over the whole image, with `spacingX` and `spacingY` pixels
            /// between copies (half of it before each copy, the rest after), one tile centred on
            /// the image's centre: libvips' `replicate` of an odd number of tiles, cut to the
            /// image, as imgproxy's `re` position does it. Negative spacings count as 0.
            case tiled(spacingX: Int = 0, spacingY: Int = 0)
        }

        /// The watermark, any alpha mode.
        public let image: Bitmap
        /// Multiplies the watermark's alpha, 0 (nothing drawn) to 1. Default: 1.
        public let opacity: Double
        /// Default: at the top-left corner.
        public let placement: Placement
        /// Names ``image`` in ``identifier``: equal names must mean equal pixels. Default: a 64-bit
        /// FNV-1a hash of its size and pixels.
        public let imageIdentifier: String

        /// `image` laid over with `opacity` (clamped to 0...1) where `placement` says.
        public init(image: Bitmap, opacity: Double = 1, placement: Placement = .at(x: 0, y: 0), imageIdentifier: String? = nil) {
            self.image = image
            self.opacity = opacity.isFinite ? min(1, max(0, opacity)) : 0
            self.placement = placement
            self.imageIdentifier = imageIdentifier ?? Self.fingerprint(of: image)
        }

        /// `watermark(fnv:0123456789abcdef,0.5,at(10,-4))`, `…,tiled)` or `…,tiled(20,0))`.
        public var identifier: String {
            let place =
                switch placement {
                case .at(let x, let y): "at(\(x),\(y))"
                case .tiled(let x, let y): x == 0 && y == 0 ? "tiled" : "tiled(\(x),\(y))"
                }
            return "watermark(\(imageIdentifier),\(opacity),\(place))"
        }

        /// `bitmap` with the watermark over it.
        public func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
            guard opacity > 0, image.width > 0, image.height > 0, bitmap.width > 0, bitmap.height > 0 else { return bitmap }
            let (width, height) = (bitmap.width, bitmap.height)
            // The watermark pixel over image pixel (x, y) is at (x + originX) mod its width (tiled)
            // or x - x0 within it (once).
            var output = bitmap.pixels
            let premultipliedTarget = bitmap.alphaMode == .premultiplied
            let premultipliedSource = image.alphaMode == .premultiplied
            // Image pixel x is at (x + shift) mod tile in its tile, whose watermark column is that
            // minus the lead (the space before it); for a single copy, the tile is never reached.
            let columns: Range<Int>
            let rows: Range<Int>
            var tile = (width: Int.max, height: Int.max)
            var shift = (x: 0, y: 0)
            var lead = (x: 0, y: 0)
            switch placement {
            case .at(let x, let y):
                columns = Self.span(from: x, length: image.width, within: width)
                rows = Self.span(from: y, length: image.height, within: height)
                lead = (x, y)
            case .tiled(let spacingX, let spacingY):
                columns = 0..<width
                rows = 0..<height
                // At most 10^9 of spacing, so no sum below overflows.
                let gapX = min(max(0, spacingX), 1_000_000_000)
                let gapY = min(max(0, spacingY), 1_000_000_000)
                tile = (image.width + gapX, image.height + gapY)
                shift = (Self.tiledShift(tile.width, over: width), Self.tiledShift(tile.height, over: height))
                lead = (gapX / 2, gapY / 2)
            }
            guard !columns.isEmpty, !rows.isEmpty else { return bitmap }
            let weight = opacity / 255
            image.pixels.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    for y in rows {
                        let sourceRow = (y + shift.y) % tile.height - lead.y
                        guard sourceRow >= 0, sourceRow < image.height else { continue }
                        for x in columns {
                            let sourceColumn = (x + shift.x) % tile.width - lead.x
                            guard sourceColumn >= 0, sourceColumn < image.width else { continue }
                            let from = (sourceRow * image.width + sourceColumn) * 4
                            let alpha = Double(source[from + 3]) * weight
                            if alpha <= 0 { continue }
                            let to = (y * width + x) * 4
                            let below = Double(target[to + 3]) / 255
                            let together = alpha + below * (1 - alpha)
                            for channel in 0..<3 {
                                // The watermark's colour straight, the image's premultiplied.
                                var colour = Double(source[from + channel])
                                if premultipliedSource { colour = source[from + 3] == 0 ? 0 : colour * 255 / Double(source[from + 3]) }
                                let under = Double(target[to + channel]) * (premultipliedTarget ? 1 : below)
                                let blended = colour * alpha + under * (1 - alpha)
                                let value = premultipliedTarget ? blended : blended / together
                                target[to + channel] = UInt8(min(255, max(0, value + 0.5)))
                            }
                            target[to + 3] = UInt8(min(255, max(0, together * 255 + 0.5)))
                        }
                    }
                }
            }
            return Bitmap(width: width, height: height, alphaMode: bitmap.alphaMode, pixels: output)
        }

        /// The part of `0..<limit` that `length` pixels from `start` cover (empty when none).
        static func span(from start: Int, length: Int, within limit: Int) -> Range<Int> {
            let lower = min(max(0, start), limit)
            let (end, overflow) = start.addingReportingOverflow(length)
            return lower..<(overflow ? limit : min(limit, max(lower, end)))
        }

        /// How far into the tile row the image's first column falls: the copies, an odd number
        /// that covers `length`, are centred on it.
        static func tiledShift(_ tile: Int, over length: Int) -> Int {
            var count = (length + tile - 1) / tile
            if count % 2 == 0 { count += 1 }
            return (count * tile - length) / 2
        }

        /// `fnv:` and 16 hex digits: a stable hash of the size and pixels.
        static func fingerprint(of bitmap: Bitmap) -> String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            func mix(_ byte: UInt8) {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
            for value in [bitmap.width, bitmap.height] {
                for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: value >> shift)) }
            }
            bitmap.pixels.withUnsafeBufferPointer { pixels in
                for byte in pixels { mix(byte) }
            }
            let digits = String(hash, radix: 16)
            return "fnv:" + String(repeating: "0", count: 16 - digits.count) + digits
        }
    }
}
