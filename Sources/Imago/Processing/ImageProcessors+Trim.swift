extension ImageProcessors {
    /// Cuts away the border of an image that is all one colour (imgproxy's `trim`, which is
    /// libvips' `find_trim`): a pixel belongs to the content when, after a 3x3 median filter that
    /// ignores specks, one of its channels differs from the border colour by more than
    /// ``threshold``; the smallest rectangle holding all content is kept.
    ///
    /// Transparent pixels count as magenta (imgproxy flattens onto it before looking), so a
    /// transparent border is trimmed with `color` magenta, or with the default colour when the
    /// top-left pixel is transparent. An image that is all border is left as it is. For an
    /// animation, the rectangle found in its first frame is cut from every frame.
    public struct Trim: BitmapProcessing, Hashable {
        /// How much a channel (0...255) may differ from the border colour and still be border.
        /// Default: 10, imgproxy's and libvips'.
        public let threshold: Double
        /// The border's colour (its alpha is ignored); `nil`: the top-left pixel's. Default: `nil`.
        public let color: RGBA?
        /// Whether the left and right margins cut are made equal: the smaller of the two is cut
        /// on both sides. Default: `false`.
        public let equalHorizontal: Bool
        /// Whether the top and bottom margins cut are made equal, as ``equalHorizontal``.
        /// Default: `false`.
        public let equalVertical: Bool

        /// A trim of the border of `color` (`nil`: the top-left pixel's) beyond `threshold`.
        public init(threshold: Double = 10, color: RGBA? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
            self.threshold = threshold.isFinite ? max(0, threshold) : 0
            self.color = color.map { RGBA($0.r, $0.g, $0.b) }
            self.equalHorizontal = equalHorizontal
            self.equalVertical = equalVertical
        }

        /// The colour all transparency is flattened onto before looking: magenta, as imgproxy.
        static let flattenColor = (r: 255, g: 0, b: 255)

        /// `trim(10.0,auto,0,0)` or `trim(10.0,#ff0000,1,0)`: threshold, colour, equal sides.
        public var identifier: String {
            let colorText = color.map { color in
                "#" + [color.r, color.g, color.b].map { String($0 / 16, radix: 16) + String($0 % 16, radix: 16) }.joined()
            }
            return "trim(\(threshold),\(colorText ?? "auto"),\(equalHorizontal ? 1 : 0),\(equalVertical ? 1 : 0))"
        }

        /// The bitmap without its border; the bitmap itself when it is all border.
        public func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
            guard let box = bounds(in: bitmap) else { return bitmap }
            return try ImageProcessors.Crop(x: box.x, y: box.y, width: box.width, height: box.height).process(bitmap)
        }

        /// The container with the rectangle found in its image cut from the image and from every
        /// frame (an animation's frames are whole canvases of one size).
        public func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer {
            guard let bitmap = container.image.bitmap else {
                throw .processingFailed(nil, processor: identifier, reason: "the image's pixels could not be read for processing")
            }
            guard let box = bounds(in: bitmap) else { return container }
            let crop = ImageProcessors.Crop(x: box.x, y: box.y, width: box.width, height: box.height)
            return try container.mapBitmaps(processor: identifier) { frame throws(ImagePipeline.Error) in
                frame.width == bitmap.width && frame.height == bitmap.height ? try crop.process(frame) : frame
            }
        }

        /// The rectangle kept in `bitmap`, in its pixels: the content's bounding box, its margins
        /// made equal where asked; `nil` when the bitmap is empty or all border.
        public func bounds(in bitmap: Bitmap) -> (x: Int, y: Int, width: Int, height: Int)? {
            let (width, height) = (bitmap.width, bitmap.height)
            guard width > 0, height > 0, bitmap.pixels.count == width * height * Bitmap.bytesPerPixel else { return nil }
            let flat = Self.flattened(bitmap)
            let background = color.map { [Int($0.r), Int($0.g), Int($0.b)] } ?? [Int(flat[0]), Int(flat[1]), Int(flat[2])]
            // Per pixel, per channel: above the border colour by more than the threshold (bits
            // 0-2) or below it by more (bits 3-5). A 3x3 median is beyond the threshold exactly
            // when five of its nine pixels are beyond it on the same side.
            var sides = [UInt8](repeating: 0, count: width * height)
            for index in 0..<(width * height) {
                var bits: UInt8 = 0
                for channel in 0..<3 {
                    let difference = Double(Int(flat[index * 3 + channel]) - background[channel])
                    if difference > threshold { bits |= 1 << channel }
                    if -difference > threshold { bits |= 8 << channel }
                }
                sides[index] = bits
            }
            func isContent(_ x: Int, _ y: Int) -> Bool {
                var counts = (0, 0, 0, 0, 0, 0)
                for dy in -1...1 {
                    let row = min(max(y + dy, 0), height - 1) * width
                    for dx in -1...1 {
                        let bits = sides[row + min(max(x + dx, 0), width - 1)]
                        if bits == 0 { continue }
                        counts.0 += Int(bits & 1)
                        counts.1 += Int(bits >> 1 & 1)
                        counts.2 += Int(bits >> 2 & 1)
                        counts.3 += Int(bits >> 3 & 1)
                        counts.4 += Int(bits >> 4 & 1)
                        counts.5 += Int(bits >> 5 & 1)
                    }
                }
                return max(counts.0, counts.1, counts.2, counts.3, counts.4, counts.5) >= 5
            }
            guard let top = (0..<height).first(where: { y in (0..<width).contains { isContent($0, y) } }),
                let bottom = (top..<height).reversed().first(where: { y in (0..<width).contains { isContent($0, y) } }),
                let left = (0..<width).first(where: { x in (top...bottom).contains { isContent(x, $0) } }),
                let right = (left..<width).reversed().first(where: { x in (top...bottom).contains { isContent(x, $0) } })
            else { return nil }
            var box = (x: left, y: top, width: right - left + 1, height: bottom - top + 1)
            if equalHorizontal {
                let margin = min(left, width - 1 - right)
                box.x = margin
                box.width = width - 2 * margin
            }
            if equalVertical {
                let margin = min(top, height - 1 - bottom)
                box.y = margin
                box.height = height - 2 * margin
            }
            return box
        }

        /// RGB of every pixel with its transparency flattened onto ``flattenColor``.
        private static func flattened(_ bitmap: Bitmap) -> [UInt8] {
            let count = bitmap.width * bitmap.height
            var rgb = [UInt8](repeating: 0, count: count * 3)
            let backdrop = [flattenColor.r, flattenColor.g, flattenColor.b]
            let premultiplied = bitmap.alphaMode == .premultiplied
            bitmap.pixels.withUnsafeBufferPointer { pixels in
                for index in 0..<count {
                    let alpha = Int(pixels[index * 4 + 3])
                    for channel in 0..<3 {
                        let value = Int(pixels[index * 4 + channel])
                        if alpha == 255 {
                            rgb[index * 3 + channel] = UInt8(value)
                        } else {
                            let covered = premultiplied ? value * 255 : value * alpha
                            rgb[index * 3 + channel] = UInt8(min(255, (covered + backdrop[channel] * (255 - alpha) + 127) / 255))
                        }
                    }
                }
            }
            return rgb
        }
    }
}
