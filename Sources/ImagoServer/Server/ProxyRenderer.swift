#if os(Linux)
import Imago

/// Applies a ``ProxyGeometry`` and the filters of a request to a decoded source: rotation, crop
/// and resize (with the result crop) as one resample, blur, sharpen, pixelate, then the extension
/// and padding, then the watermark. The source may be decoded at any reduced scale
/// (shrink-on-load, or a decode shared with other requests) that covers
/// ``ProxyGeometry/requiredScale``: the geometry is at full resolution and is scaled to the pixels
/// it gets.
struct ProxyRenderer {
    var geometry: ProxyGeometry
    /// Gaussian blur sigma in output pixels, or `nil`.
    var blurSigma: Double?
    /// Unsharp-mask sigma in output pixels, or `nil`.
    var sharpenSigma: Double?
    /// What extension and padding show; `nil`: transparent.
    var background: RGBA?
    /// Mirroring after the rotation, left to right and top to bottom.
    var flipsHorizontally = false
    var flipsVertically = false
    /// The block side of `pixelate`, or `nil`.
    var pixelateSize: Int?
    /// How `g:sm` finds the interesting part. Default: attention, as imgproxy.
    var smartCropStrategy: ImageProcessors.SmartCrop.Strategy = .attention
    /// Laid over the whole result last, as imgproxy does (``ProxyWatermark``). Default: `nil`.
    var watermark: ProxyWatermark?
    /// Whether the resample runs in linear light (imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE`).
    /// Default: `false`.
    var linearLight = false

    init(geometry: ProxyGeometry, options: ProcessingOptions) {
        self.geometry = geometry
        blurSigma = options.blurSigma
        sharpenSigma = options.sharpenSigma
        background = options.background
        flipsHorizontally = options.flipHorizontally
        flipsVertically = options.flipVertically
        pixelateSize = options.pixelateSize
    }

    /// The output bitmap, exactly ``ProxyGeometry/canvasSize``.
    func render(_ source: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
        guard source.width > 0, source.height > 0 else {
            throw .processingFailed(nil, processor: "proxy", reason: "the image is empty")
        }
        // Rotated, then flipped: the crop and its gravity see the image as turned and mirrored.
        let image = Self.flipped(
            try ImageProcessors.Rotate(degrees: geometry.quarterTurns * 90).process(source), horizontally: flipsHorizontally,
            vertically: flipsVertically)
        // Pixels of `image` per pixel of the full-resolution, rotated source.
        let scaleX = Double(image.width) / Double(geometry.rotatedSize.width)
        let scaleY = Double(image.height) / Double(geometry.rotatedSize.height)

        // The crop, in `image` pixels.
        var crop = (
            x: Double(geometry.crop.x) * scaleX, y: Double(geometry.crop.y) * scaleY,
            width: min(Double(geometry.crop.width) * scaleX, Double(image.width)),
            height: min(Double(geometry.crop.height) * scaleY, Double(image.height)))
        if geometry.cropIsSmart {
            let finder = ImageProcessors.SmartCrop(
                width: max(1, Int(crop.width.rounded())), height: max(1, Int(crop.height.rounded())), strategy: smartCropStrategy)
            let origin = finder.origin(in: image)
            (crop.x, crop.y) = (Double(origin.x), Double(origin.y))
        }

        // The result crop, from output pixels back to `image` pixels.
        let perOutputX = scaleX / geometry.horizontalScale
        let perOutputY = scaleY / geometry.verticalScale
        let result = geometry.resultCrop
        var region = (
            x: crop.x + Double(result.x) * perOutputX, y: crop.y + Double(result.y) * perOutputY,
            width: Double(result.width) * perOutputX, height: Double(result.height) * perOutputY)
        if geometry.resultCropIsSmart {
            let cropped = try ImageProcessors.Crop(
                x: Int(crop.x.rounded(.down)), y: Int(crop.y.rounded(.down)),
                width: max(1, min(Int(crop.width.rounded()), image.width - Int(crop.x.rounded(.down)))),
                height: max(1, min(Int(crop.height.rounded()), image.height - Int(crop.y.rounded(.down))))
            ).process(image)
            let finder = ImageProcessors.SmartCrop(
                width: max(1, Int(region.width.rounded())), height: max(1, Int(region.height.rounded())), strategy: smartCropStrategy)
            let origin = finder.origin(in: cropped)
            region.x = crop.x.rounded(.down) + Double(origin.x)
            region.y = crop.y.rounded(.down) + Double(origin.y)
        }
        // Within the image, whatever the rounding.
        region.width = min(max(region.width, 1e-3), Double(image.width))
        region.height = min(max(region.height, 1e-3), Double(image.height))
        region.x = min(max(region.x, 0), Double(image.width) - region.width)
        region.y = min(max(region.y, 0), Double(image.height) - region.height)
        var content = Resampler.resample(
            image, region: Resampler.Region(x: region.x, y: region.y, width: region.width, height: region.height),
            to: geometry.contentSize, linearLight: linearLight)

        if let blurSigma { content = try ImageProcessors.GaussianBlur(sigma: blurSigma).process(content) }
        if let sharpenSigma { content = try ImageProcessors.Sharpen(sigma: sharpenSigma).process(content) }
        if let pixelateSize { content = Self.pixelated(content, size: pixelateSize) }

        let origin = geometry.contentOrigin
        let canvas = geometry.canvasSize
        let fill = background.map { RGBA($0.r, $0.g, $0.b, 255) } ?? RGBA(0, 0, 0, 0)
        let canvasImage = try ImageProcessors.Padding(
            top: origin.y, right: canvas.width - content.width - origin.x, bottom: canvas.height - content.height - origin.y,
            left: origin.x, color: fill
        ).process(content)
        return try watermark?.apply(to: canvasImage, offsetScale: geometry.offsetScale) ?? canvasImage
    }
}
#endif
