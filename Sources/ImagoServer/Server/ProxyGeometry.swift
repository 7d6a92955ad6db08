#if os(Linux)
import Imago

/// What a request does to a source of a given size, in numbers, before any pixel is touched:
/// imgproxy's order of rotation, crop, resize, result crop (fill), extension and padding, at the
/// source's full resolution. ``ProxyRenderer`` applies it to pixels decoded at any reduced scale;
/// ``requiredScale`` says how reduced they may be.
///
/// Whatever the options, no output side exceeds the maximum dimension: the padding is taken off
/// the room the image has, a side of 0 (or no resize) is bounded by what is left, and a side the
/// path gives is checked against it before anything is fetched (``ImageProxy``, 400 `too_large`).
struct ProxyGeometry: Hashable {
    /// A rectangle in pixels of some image.
    struct Rect: Hashable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }

    /// A point in pixels.
    struct Point: Hashable {
        var x: Int
        var y: Int
    }

    /// The source after its EXIF orientation and the rotation.
    var rotatedSize: PixelSize
    /// Clockwise quarter turns (0...3).
    var quarterTurns: Int
    /// The part of the rotated source kept (the whole of it without a `crop`). Its position is
    /// found in the pixels when ``cropIsSmart``.
    var crop: Rect
    var cropIsSmart = false
    /// Output pixels per source pixel, across and down (equal unless `force`).
    var horizontalScale: Double
    var verticalScale: Double
    /// The cropped source at the output scale, before the result crop.
    var scaledSize: PixelSize
    /// The part of the scaled image shown (all of it but with `fill`), found in the pixels when
    /// ``resultCropIsSmart``.
    var resultCrop: Rect
    var resultCropIsSmart = false
    /// The output: the canvas (extension and padding included) and where the image sits on it.
    var canvasSize: PixelSize
    var contentOrigin: Point

    /// The output's content size: the result crop.
    var contentSize: PixelSize { PixelSize(width: resultCrop.width, height: resultCrop.height) }

    /// The least share of the source's resolution the pixels must have (0...1]: a decode reduced
    /// to this scale (or less reduced) still gives every output pixel a source pixel.
    var requiredScale: Double { min(1, max(horizontalScale, verticalScale)) }

    /// The plan for a source of `source` pixels (after its EXIF orientation) under `options`,
    /// within `maximumDimension` a side.
    init(source: PixelSize, options: ProcessingOptions, maximumDimension: Int) {
        quarterTurns = options.rotation / 90 % 4
        let size = quarterTurns % 2 == 1 ? PixelSize(width: source.height, height: source.width) : source
        rotatedSize = PixelSize(width: max(1, size.width), height: max(1, size.height))
        let ratio = options.devicePixelRatio

        // The crop, in rotated-source pixels (its offsets are not scaled by the ratio).
        crop = Rect(x: 0, y: 0, width: rotatedSize.width, height: rotatedSize.height)
        if let option = options.crop {
            let width = Self.side(option.width, of: rotatedSize.width)
            let height = Self.side(option.height, of: rotatedSize.height)
            if width < rotatedSize.width || height < rotatedSize.height {
                let gravity = option.gravity ?? options.gravity
                cropIsSmart = gravity.anchor == .smart
                let origin = Self.position(of: PixelSize(width: width, height: height), in: rotatedSize, gravity: gravity, offsetScale: 1)
                crop = Rect(x: origin.x, y: origin.y, width: width, height: height)
            }
        }

        // The room the image has: the padding comes off the maximum dimension.
        let padding = options.pixelPadding
        let room = PixelSize(
            width: max(1, maximumDimension - padding.horizontal), height: max(1, maximumDimension - padding.vertical))
        let targetWidth = options.pixelWidth
        let targetHeight = options.pixelHeight
        let cropWidth = Double(crop.width)
        let cropHeight = Double(crop.height)
        let fitsRoom = min(Double(room.width) / cropWidth, Double(room.height) / cropHeight)
        let fills = options.resizingType == .fill && targetWidth > 0 && targetHeight > 0
        switch options.resizingType {
        case _ where targetWidth == 0 && targetHeight == 0:
            // No resize: as it is, unless a side exceeds the room.
            horizontalScale = min(1, fitsRoom)
            verticalScale = horizontalScale
        case .force:
            // A side of 0 keeps the source's side, within the room.
            var horizontal = targetWidth > 0 ? Double(targetWidth) / cropWidth : min(cropWidth, Double(room.width)) / cropWidth
            var vertical = targetHeight > 0 ? Double(targetHeight) / cropHeight : min(cropHeight, Double(room.height)) / cropHeight
            if !options.enlarge { (horizontal, vertical) = (min(horizontal, 1), min(vertical, 1)) }
            (horizontalScale, verticalScale) = (horizontal, vertical)
        case .fill where fills:
            var scale = max(Double(targetWidth) / cropWidth, Double(targetHeight) / cropHeight)
            if !options.enlarge { scale = min(scale, 1) }
            (horizontalScale, verticalScale) = (scale, scale)
        case .fit, .fill:
            // A side of 0 follows the other's aspect ratio, bounded by the room.
            var scale = fitsRoom
            if targetWidth > 0 { scale = min(scale, Double(targetWidth) / cropWidth) }
            if targetHeight > 0 { scale = min(scale, Double(targetHeight) / cropHeight) }
            if !options.enlarge { scale = min(scale, 1) }
            (horizontalScale, verticalScale) = (scale, scale)
        }
        scaledSize = PixelSize(width: Self.pixels(cropWidth * horizontalScale), height: Self.pixels(cropHeight * verticalScale))

        // The result crop (fill): the asked size, or less when the image is smaller and not enlarged.
        let content = PixelSize(
            width: min(fills ? min(targetWidth, scaledSize.width) : scaledSize.width, room.width),
            height: min(fills ? min(targetHeight, scaledSize.height) : scaledSize.height, room.height))
        resultCropIsSmart = fills && options.gravity.anchor == .smart
        let resultOrigin = Self.position(of: content, in: scaledSize, gravity: options.gravity, offsetScale: ratio)
        resultCrop = Rect(x: resultOrigin.x, y: resultOrigin.y, width: content.width, height: content.height)

        // The extension to the asked size, then the padding.
        var canvas = content
        var origin = (x: 0, y: 0)
        if let extend = options.extend {
            canvas = PixelSize(
                width: min(max(targetWidth, content.width), room.width), height: min(max(targetHeight, content.height), room.height))
            origin = Self.position(of: content, in: canvas, gravity: extend.gravity, offsetScale: ratio)
        }
        canvasSize = PixelSize(width: canvas.width + padding.horizontal, height: canvas.height + padding.vertical)
        contentOrigin = Point(x: origin.x + padding.left, y: origin.y + padding.top)
    }

    /// A crop side: 0 the whole side, below 1 a share of it, else pixels (at most the side).
    private static func side(_ value: Double, of length: Int) -> Int {
        if value == 0 { return length }
        if value < 1 { return min(length, max(1, Int((Double(length) * value).rounded()))) }
        return min(length, Int(value))  // ≤ 100,000 (parser)
    }

    /// A scaled side in whole pixels, at least 1. Scales are bounded (sides ≤ 100,000 times 8 over
    /// at least one pixel), so the product fits an `Int`.
    private static func pixels(_ length: Double) -> Int {
        max(1, Int(min(length, 1e9).rounded()))
    }

    /// Where `inner` sits in `outer` under `gravity` (imgproxy's placement, never overflowing):
    /// compass points with offsets (pixels from 1 up, times `offsetScale`; shares of the outer side
    /// below 1), a focus point (the inner centre on it), or the centre for `sm` (placed from the
    /// pixels later).
    static func position(
        of inner: PixelSize, in outer: PixelSize, gravity: ProcessingOptions.Gravity, offsetScale: Double
    ) -> (x: Int, y: Int) {
        let freeX = max(0, outer.width - inner.width)
        let freeY = max(0, outer.height - inner.height)
        var left: Int
        var top: Int
        switch gravity.anchor {
        case .focusPoint:
            left = Int((Double(outer.width) * gravity.x).rounded()) - inner.width / 2
            top = Int((Double(outer.height) * gravity.y).rounded()) - inner.height / 2
        case .smart:
            (left, top) = (freeX / 2, freeY / 2)
        default:
            let offsetX = offset(gravity.x, of: outer.width, scale: offsetScale)
            let offsetY = offset(gravity.y, of: outer.height, scale: offsetScale)
            left = freeX / 2 + offsetX
            top = freeY / 2 + offsetY
            switch gravity.anchor {
            case .north, .northEast, .northWest: top = offsetY
            case .south, .southEast, .southWest: top = freeY - offsetY
            default: break
            }
            switch gravity.anchor {
            case .east, .northEast, .southEast: left = freeX - offsetX
            case .west, .northWest, .southWest: left = offsetX
            default: break
            }
        }
        return (min(max(left, 0), freeX), min(max(top, 0), freeY))
    }

    /// An offset in pixels: `value` pixels (times `scale`) from a magnitude of 1, else a share of
    /// `length`. Offsets are bounded by the parser (±100,000, ratio ≤ 8).
    private static func offset(_ value: Double, of length: Int, scale: Double) -> Int {
        abs(value) >= 1 ? Int((value * scale).rounded()) : Int((Double(length) * value).rounded())
    }
}
#endif
