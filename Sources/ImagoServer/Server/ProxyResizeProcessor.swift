import Imago

/// The resize a processing path asks for, at pixel sizes (the ratio already applied), within the
/// server's longest side: fit and fill keep the aspect ratio (fill cuts the overflow, centred),
/// force stretches. A side of 0 follows the other side's aspect ratio; fill with a side of 0 is
/// fit; no resize at all keeps the image as it is.
///
/// Whatever the options, no output side exceeds ``maximumDimension``: a side of 0 (or no resize)
/// is bounded by it, so a 5000x64 source asked without a resize comes out scaled down to fit. The
/// sides a path gives are checked against it before anything is fetched (400 `too_large`).
struct ProxyResizeProcessor: ImageProcessing, Hashable {
    var type: ProcessingOptions.ResizingType
    var width: Int
    var height: Int
    var enlarge: Bool
    /// The longest side an output may have (`--max-dimension`).
    var maximumDimension: Int

    var identifier: String {
        "proxy-resize(\(type.rawValue),\(width)x\(height)\(enlarge ? ",enlarge" : ""),max\(maximumDimension))"
    }

    /// The box the output fits in: the asked sides, a side of 0 bounded by ``maximumDimension``.
    var box: PixelSize {
        PixelSize(width: width > 0 ? width : maximumDimension, height: height > 0 ? height : maximumDimension)
    }

    /// The longest side the pipeline may shrink the source to on load (JPEG DCT scaling, WebP
    /// scaled decode, then a thumbnail), or `nil` when the whole image is needed: without a resize
    /// the output is exactly that thumbnail of ``maximumDimension``; a fit into a whole box never
    /// comes out larger than the box's longer side. Fill, force, enlarging, and a fit with a side
    /// of 0 (whose box is not the output's shape) take the full image.
    var shrinkOnLoadSide: Int? {
        if width == 0 && height == 0 { return maximumDimension }
        guard type == .fit, !enlarge, width > 0, height > 0 else { return nil }
        return max(width, height)
    }

    func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer {
        // The first frame, resized; its colour profile and repairs stay with it.
        var result = container
        result.image = try ImageContainer(bitmap: try process(try container.bitmap()), format: container.format).image
        result.frames = []
        return result
    }

    func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
        guard bitmap.width > 0, bitmap.height > 0 else {
            throw .processingFailed(nil, processor: identifier, reason: "the image is empty")
        }
        let maximumPixelCount = maximumDimension * maximumDimension  // at most 16,384², checked at start
        switch type {
        case _ where width == 0 && height == 0:
            // No resize: as it is, unless a side exceeds the server's limit.
            return try ResizeProcessor(size: box, contentMode: .aspectFit, maximumOutputPixelCount: maximumPixelCount)
                .process(bitmap)
        case .fit,
            .fill where width == 0 || height == 0:
            return try ResizeProcessor(
                size: box, contentMode: .aspectFit, upscale: enlarge, maximumOutputPixelCount: maximumPixelCount
            ).process(bitmap)
        case .fill:
            return try ResizeProcessor(
                size: box, contentMode: .aspectFill, upscale: enlarge, crop: true,
                maximumOutputPixelCount: maximumPixelCount
            ).process(bitmap)
        case .force:
            // A side of 0 keeps the source's side, within the limit.
            var size = PixelSize(
                width: width > 0 ? width : min(bitmap.width, maximumDimension),
                height: height > 0 ? height : min(bitmap.height, maximumDimension))
            if !enlarge {
                size = PixelSize(width: min(size.width, bitmap.width), height: min(size.height, bitmap.height))
            }
            if size == PixelSize(width: bitmap.width, height: bitmap.height) { return bitmap }
            return Resampler.resample(bitmap, to: size)
        }
    }
}
