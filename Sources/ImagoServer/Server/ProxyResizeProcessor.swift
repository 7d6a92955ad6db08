import Imago

/// The resize a processing path asks for, at pixel sizes (the ratio already applied): fit and
/// fill keep the aspect ratio (fill cuts the overflow, centred), force stretches. A side of 0
/// follows the other side's aspect ratio; fill with a side of 0 is fit.
struct ProxyResizeProcessor: ImageProcessing, Hashable {
    var type: ProcessingOptions.ResizingType
    var width: Int
    var height: Int
    var enlarge: Bool
    var maximumOutputPixelCount: Int

    var identifier: String { "proxy-resize(\(type.rawValue),\(width)x\(height)\(enlarge ? ",enlarge" : ""))" }

    func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer {
        // The first frame, resized; its colour profile and repairs stay with it.
        var result = container
        result.image = try ImageContainer(bitmap: try process(try container.bitmap()), format: container.format).image
        result.frames = []
        return result
    }

    func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
        guard width > 0 || height > 0 else { return bitmap }
        guard bitmap.width > 0, bitmap.height > 0 else {
            throw .processingFailed(nil, processor: identifier, reason: "the image is empty")
        }
        // A side given as 0 follows the aspect ratio: as large as it may be.
        let unbounded = 1 << 30
        let box = PixelSize(width: width > 0 ? width : unbounded, height: height > 0 ? height : unbounded)
        switch type {
        case .fit,
            .fill where width == 0 || height == 0:
            return try ResizeProcessor(
                size: box, contentMode: .aspectFit, upscale: enlarge, maximumOutputPixelCount: maximumOutputPixelCount
            ).process(bitmap)
        case .fill:
            return try ResizeProcessor(
                size: box, contentMode: .aspectFill, upscale: enlarge, crop: true,
                maximumOutputPixelCount: maximumOutputPixelCount
            ).process(bitmap)
        case .force:
            var size = PixelSize(width: width > 0 ? width : bitmap.width, height: height > 0 ? height : bitmap.height)
            if !enlarge {
                size = PixelSize(width: min(size.width, bitmap.width), height: min(size.height, bitmap.height))
            }
            let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
            guard !overflow, pixels <= maximumOutputPixelCount else {
                throw .processingFailed(nil, processor: identifier, reason: "\(size) is more pixels than the server allows")
            }
            if size == PixelSize(width: bitmap.width, height: bitmap.height) { return bitmap }
            return Resampler.resample(bitmap, to: size)
        }
    }
}
