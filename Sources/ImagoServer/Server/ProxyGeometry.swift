#if os(Linux)
import Imago

/// What a request does to a source of a given size, in numbers, before any pixel is touched:
/// imgproxy's order of rotation (and flip), crop, resize, result crop (fill, fill-down), extension,
/// extension to the aspect ratio and padding, at the source's full resolution, with imgproxy's
/// sizes (``Sizing``). ``ProxyRenderer`` applies it to pixels decoded at any reduced scale;
/// ``requiredScale`` says how reduced they may be.
///
/// Whatever the options, no output side exceeds the maximum dimension: it is imgproxy's
/// `max_result_dimension` when the path names none (or a larger one), so the image, the extension
/// and the padding shrink together to fit; and a side the path gives is checked against it before
/// anything is fetched (``ImageProxy``, 400 `too_large`).
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
    /// The ratio applied to absolute offsets (the path's, as lowered by the sizing): what a
    /// watermark's pixel offsets are multiplied by.
    var offsetScale = 1.0
    /// Whether the source is needed whole: a trim finds its border in every pixel, so the source
    /// is decoded at full resolution (imgproxy turns shrink-on-load off for it too) and the
    /// geometry is computed again for the trimmed size (``ProxyRendering``).
    var needsWholeSource = false

    /// The output's content size: the result crop.
    var contentSize: PixelSize { PixelSize(width: resultCrop.width, height: resultCrop.height) }

    /// The least share of the source's resolution the pixels must have (0...1]: a decode reduced
    /// to this scale (or less reduced) still gives every output pixel a source pixel.
    var requiredScale: Double { needsWholeSource ? 1 : min(1, max(horizontalScale, verticalScale)) }

    /// The plan for a source of `source` pixels (after its EXIF orientation) under `options`,
    /// within `maximumDimension` a side (and the path's `max_result_dimension`, never above it).
    init(source: PixelSize, options: ProcessingOptions, maximumDimension: Int) {
        let bound = max(1, maximumDimension)
        var limit = min(options.maximumResultDimension ?? bound, bound)
        var geometry = ProxyGeometry(source: source, options: options, limit: limit)
        // imgproxy's limit scales the image and the padding together, each side rounded on its
        // own, so the sum can pass the bound by a pixel or two: tighten until it holds.
        var tries = 0
        while geometry.excess(over: bound) > 0, tries < 8, limit > 1 {
            limit = max(1, limit - geometry.excess(over: bound))
            geometry = ProxyGeometry(source: source, options: options, limit: limit)
            tries += 1
        }
        if geometry.excess(over: bound) > 0 { geometry.clamp(to: bound) }
        self = geometry
    }

    /// The plan with imgproxy's sizes, the whole result brought within `limit`.
    private init(source: PixelSize, options: ProcessingOptions, limit: Int) {
        quarterTurns = options.rotation / 90 % 4
        let size = quarterTurns % 2 == 1 ? PixelSize(width: source.height, height: source.width) : source
        rotatedSize = PixelSize(width: max(1, size.width), height: max(1, size.height))

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

        let sizing = Sizing(width: crop.width, height: crop.height, options: options, limit: limit)
        scaledSize = PixelSize(width: sizing.scaledWidth, height: sizing.scaledHeight)
        // The scales the pixels get: exactly the scaled size over the crop.
        horizontalScale = Double(scaledSize.width) / Double(crop.width)
        verticalScale = Double(scaledSize.height) / Double(crop.height)

        // The result crop: the asked size (or fill-down's), within the scaled image.
        let content = PixelSize(
            width: Sizing.leastNonZero(sizing.resultCropWidth, scaledSize.width),
            height: Sizing.leastNonZero(sizing.resultCropHeight, scaledSize.height))
        resultCropIsSmart = content != scaledSize && options.gravity.anchor == .smart
        let resultOrigin = Self.position(of: content, in: scaledSize, gravity: options.gravity, offsetScale: sizing.ratio)
        resultCrop = Rect(x: resultOrigin.x, y: resultOrigin.y, width: content.width, height: content.height)

        // The extension to the asked size, then to the asked aspect ratio, then the padding.
        var canvas = content
        var origin = (x: 0, y: 0)
        let extensions: [(ProcessingOptions.Extend?, Int, Int)] = [
            (options.extend, sizing.targetWidth, sizing.targetHeight),
            (options.extendAspectRatio, sizing.aspectWidth, sizing.aspectHeight),
        ]
        for case let (extend?, width, height) in extensions where width > canvas.width || height > canvas.height {
            let larger = PixelSize(width: max(width, canvas.width), height: max(height, canvas.height))
            let placed = Self.position(of: canvas, in: larger, gravity: extend.gravity, offsetScale: sizing.ratio)
            origin = (origin.x + placed.x, origin.y + placed.y)
            canvas = larger
        }
        let padding = Sizing.padding(options, ratio: sizing.ratio)
        canvasSize = PixelSize(width: canvas.width + padding.horizontal, height: canvas.height + padding.vertical)
        contentOrigin = Point(x: origin.x + padding.left, y: origin.y + padding.top)
        offsetScale = sizing.ratio
        needsWholeSource = options.trim != nil
    }

    /// How many pixels the longer side of the canvas passes `bound` by (0 within it).
    private func excess(over bound: Int) -> Int {
        max(0, max(canvasSize.width, canvasSize.height) - bound)
    }

    /// The last resort for bounds too small for imgproxy's arithmetic to meet (a few pixels): the
    /// canvas cut to `bound`, the image kept inside it.
    private mutating func clamp(to bound: Int) {
        canvasSize = PixelSize(width: min(canvasSize.width, bound), height: min(canvasSize.height, bound))
        let width = min(resultCrop.width, canvasSize.width)
        let height = min(resultCrop.height, canvasSize.height)
        resultCrop = Rect(x: resultCrop.x, y: resultCrop.y, width: width, height: height)
        contentOrigin = Point(
            x: min(contentOrigin.x, canvasSize.width - width), y: min(contentOrigin.y, canvasSize.height - height))
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
            left = Int((Double(outer.width) * gravity.x).rounded(.toNearestOrEven)) - inner.width / 2
            top = Int((Double(outer.height) * gravity.y).rounded(.toNearestOrEven)) - inner.height / 2
        case .smart:
            (left, top) = (freeX / 2, freeY / 2)
        default:
            let offsetX = offset(gravity.x, of: outer.width, scale: offsetScale)
            let offsetY = offset(gravity.y, of: outer.height, scale: offsetScale)
            // imgproxy centres with (free + 1) / 2 rounded half to even.
            left = Int((Double(freeX + 1) / 2).rounded(.toNearestOrEven)) + offsetX
            top = Int((Double(freeY + 1) / 2).rounded(.toNearestOrEven)) + offsetY
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
        abs(value) >= 1 ? Int((value * scale).rounded(.toNearestOrEven)) : Int((Double(length) * value).rounded(.toNearestOrEven))
    }
}
#endif
