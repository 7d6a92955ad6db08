#if os(Linux)
extension ProxyGeometry {
    /// The sizes of a request as imgproxy computes them, for the (cropped) source it resizes:
    /// the scale across and down, the ratio actually applied, the asked size, the scaled image,
    /// the result crop and the aspect-ratio extension, all in output pixels. A value, so each step
    /// can be checked by itself; ``ProxyGeometry`` places the rectangles.
    ///
    /// The order is imgproxy's: the shrink the resizing type gives (`auto` picking `fill` or
    /// `fit`), the zoom, the refusal to enlarge (which caps the ratio, so a ratio never enlarges
    /// either), the minimum width and height, the ratio; then the sizes; then the whole result
    /// (extension and padding included) brought within `limit` by lowering the scale and the
    /// ratio together.
    struct Sizing: Hashable {
        /// Output pixels per source pixel, across and down.
        var horizontalScale = 1.0
        var verticalScale = 1.0
        /// The ratio applied to the asked size, the padding and the offsets: the path's, lowered
        /// where it would enlarge an image that must not be, and by the limit.
        var ratio = 1.0
        /// The asked size in output pixels (0: not asked).
        var targetWidth = 0
        var targetHeight = 0
        /// The source after the scale.
        var scaledWidth = 1
        var scaledHeight = 1
        /// The result crop (0: the whole side).
        var resultCropWidth = 0
        var resultCropHeight = 0
        /// The canvas `extend_aspect_ratio` asks (0: none).
        var aspectWidth = 0
        var aspectHeight = 0

        /// The sizes for a source of `width` x `height` (after crop and rotation) under `options`,
        /// the result within `limit` pixels a side.
        init(width: Int, height: Int, options: ProcessingOptions, limit: Int) {
            let sourceWidth = Double(max(1, width))
            let sourceHeight = Double(max(1, height))
            scale(sourceWidth, sourceHeight, options)
            measure(width: max(1, width), height: max(1, height), options)
            bound(width: max(1, width), height: max(1, height), options, limit: limit)
        }

        /// The scales and the ratio (imgproxy's `calcScale`).
        private mutating func scale(_ sourceWidth: Double, _ sourceHeight: Double, _ options: ProcessingOptions) {
            var shrinkX = 1.0
            var shrinkY = 1.0
            let askedWidth = options.width > 0 ? Double(options.width) : sourceWidth
            let askedHeight = options.height > 0 ? Double(options.height) : sourceHeight
            if askedWidth != sourceWidth { shrinkX = sourceWidth / askedWidth }
            if askedHeight != sourceHeight { shrinkY = sourceHeight / askedHeight }
            if shrinkX != 1 || shrinkY != 1 {
                var type = options.resizingType
                if type == .auto {
                    let sourceLandscape = sourceWidth - sourceHeight >= 0
                    let askedLandscape = askedWidth - askedHeight >= 0
                    type = sourceLandscape == askedLandscape ? .fill : .fit
                }
                switch type {
                case _ where options.width == 0 && type != .force: shrinkX = shrinkY
                case _ where options.height == 0 && type != .force: shrinkY = shrinkX
                case .fit: (shrinkX, shrinkY) = (max(shrinkX, shrinkY), max(shrinkX, shrinkY))
                case .fill, .fillDown: (shrinkX, shrinkY) = (min(shrinkX, shrinkY), min(shrinkX, shrinkY))
                default: break
                }
            }
            shrinkX /= options.zoomWidth
            shrinkY /= options.zoomHeight
            ratio = options.devicePixelRatio
            if !options.enlarge {
                let least = min(shrinkX, shrinkY)
                if least < 1 {
                    shrinkX /= least
                    shrinkY /= least
                    // The asked size cannot be reached; a ratio below 1 would move further from
                    // it, so it is compensated (not when extending: the canvas keeps its layout).
                    if options.extend == nil { ratio /= least }
                }
                ratio = min(ratio, min(shrinkX, shrinkY))
            }
            if options.minimumWidth > 0 {
                let least = sourceWidth / Double(options.minimumWidth)
                if least < shrinkX { (shrinkY, shrinkX) = (shrinkY / (shrinkX / least), least) }
            }
            if options.minimumHeight > 0 {
                let least = sourceHeight / Double(options.minimumHeight)
                if least < shrinkY { (shrinkX, shrinkY) = (shrinkX / (shrinkY / least), least) }
            }
            shrinkX = min(shrinkX / ratio, sourceWidth)  // at least one pixel
            shrinkY = min(shrinkY / ratio, sourceHeight)
            (horizontalScale, verticalScale) = (1 / shrinkX, 1 / shrinkY)
        }

        /// The sizes that follow from the scales (imgproxy's `calcSizes`).
        private mutating func measure(width: Int, height: Int, _ options: ProcessingOptions) {
            targetWidth = Self.scaled(options.width, ratio * options.zoomWidth)
            targetHeight = Self.scaled(options.height, ratio * options.zoomHeight)
            scaledWidth = max(1, Self.scaled(width, horizontalScale))
            scaledHeight = max(1, Self.scaled(height, verticalScale))
            (resultCropWidth, resultCropHeight) = (targetWidth, targetHeight)
            if options.resizingType == .fillDown && !options.enlarge {
                // Not enlarged: the box's aspect ratio, cut from the image at its own scale.
                let overX = Double(targetWidth) / Double(scaledWidth)
                let overY = Double(targetHeight) / Double(scaledHeight)
                if overX > overY && overX > 1 {
                    resultCropHeight = Self.scaled(scaledWidth, Double(targetHeight) / Double(targetWidth))
                    resultCropWidth = scaledWidth
                } else if overY > overX && overY > 1 {
                    resultCropWidth = Self.scaled(scaledHeight, Double(targetWidth) / Double(targetHeight))
                    resultCropHeight = scaledHeight
                }
            }
            (aspectWidth, aspectHeight) = (0, 0)
            if options.extendAspectRatio != nil, targetWidth > 0, targetHeight > 0 {
                let outWidth = Self.leastNonZero(scaledWidth, resultCropWidth)
                let outHeight = Self.leastNonZero(scaledHeight, resultCropHeight)
                let overX = Double(targetWidth) / Double(outWidth)
                let overY = Double(targetHeight) / Double(outHeight)
                if overY > overX {
                    (aspectWidth, aspectHeight) = (outWidth, Self.scaled(outWidth, Double(targetHeight) / Double(targetWidth)))
                } else if overX > overY {
                    (aspectWidth, aspectHeight) = (Self.scaled(outHeight, Double(targetWidth) / Double(targetHeight)), outHeight)
                }
            }
        }

        /// The whole result within `limit` a side (imgproxy's `limitScale`): scale and ratio
        /// lowered together, never below one source pixel.
        private mutating func bound(width: Int, height: Int, _ options: ProcessingOptions, limit: Int) {
            guard limit > 0 else { return }
            var outWidth = Self.leastNonZero(scaledWidth, resultCropWidth)
            var outHeight = Self.leastNonZero(scaledHeight, resultCropHeight)
            if options.extend != nil {
                (outWidth, outHeight) = (max(outWidth, targetWidth), max(outHeight, targetHeight))
            } else if options.extendAspectRatio != nil {
                (outWidth, outHeight) = (max(outWidth, aspectWidth), max(outHeight, aspectHeight))
            }
            let padding = Self.padding(options, ratio: ratio)
            outWidth += padding.horizontal
            outHeight += padding.vertical
            guard outWidth > limit || outHeight > limit else { return }
            let down = Double(limit) / Double(max(outWidth, outHeight))
            horizontalScale = max(horizontalScale * down, 1 / Double(width))
            verticalScale = max(verticalScale * down, 1 / Double(height))
            ratio *= down
            measure(width: width, height: height, options)
        }

        /// The padding in output pixels at `ratio` (each side rounded half to even, as imgproxy).
        static func padding(_ options: ProcessingOptions, ratio: Double) -> ProcessingOptions.Padding {
            guard let padding = options.padding else { return ProcessingOptions.Padding(top: 0, right: 0, bottom: 0, left: 0) }
            func side(_ length: Int) -> Int { Int(min(Double(length) * ratio, 1e9).rounded(.toNearestOrEven)) }
            return ProcessingOptions.Padding(
                top: side(padding.top), right: side(padding.right), bottom: side(padding.bottom), left: side(padding.left))
        }

        /// `length` times `scale`, rounded half away from zero; 0 stays 0. Bounded so no product
        /// of the parser's bounds can overflow an `Int`.
        static func scaled(_ length: Int, _ scale: Double) -> Int {
            guard length != 0 else { return 0 }
            return Int(min(Double(length) * scale, 1e9).rounded())
        }

        /// The smaller of two sides, where 0 means "not given".
        static func leastNonZero(_ a: Int, _ b: Int) -> Int {
            a == 0 ? b : b == 0 ? a : min(a, b)
        }
    }
}
#endif
