extension ImageProcessors {
    /// Scales an image to fit in, or to fill, a target size, keeping its aspect ratio.
    ///
    /// Shrinking uses Lanczos-3 resampling in premultiplied alpha, so fine detail does not alias and
    /// transparent edges gain no dark fringe; enlarging uses Catmull-Rom. By default an image
    /// is never enlarged: a smaller image passes through at its own size.
    public struct Resize: BitmapProcessing, Hashable {
        /// How the image is fitted to ``size``.
        public enum ContentMode: String, Sendable, Hashable, Codable {
            /// The whole image fits inside the size; one side may come out shorter.
            case aspectFit
            /// The image covers the size; one side may come out longer, unless ``ImageProcessors/Resize/crop``.
            case aspectFill
        }

        /// The target size in pixels.
        public let size: PixelSize
        /// Fit inside or fill ``size``.
        public let contentMode: ContentMode
        /// Whether an image smaller than ``size`` is enlarged.
        public let upscale: Bool
        /// With ``ContentMode/aspectFill``: cut the overflowing sides so the result is exactly
        /// ``size`` (centred). Ignored with ``ContentMode/aspectFit``, which never overflows.
        public let crop: Bool
        /// Whether the filter runs in linear light (sRGB's curve undone, then redone), as libvips'
        /// `thumbnail --linear` and imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE` do: fine detail
        /// of light and dark keeps its brightness (black and white lines shrink to a 188 grey, not
        /// 128), for about 1.4 times the resize's time (12 MP to 256 pixels, `imago-bench`'s
        /// `linear-light`). It applies to pixels in sRGB, or kept in a profile with sRGB's transfer
        /// curve (Display P3); pixels kept in a profile with another curve (``ColorProfileHandling/keep``
        /// with Adobe RGB, ProPhoto, a linear profile) are filtered on their stored values, since
        /// undoing sRGB's curve would not give their light; a bitmap resized on its own, without
        /// its container, is taken to be sRGB. Default: `false`, on the stored values, as browsers
        /// and most libraries scale.
        public let linearLight: Bool
        /// Largest `width * height` the output may have, so that enlarging to an absurd size (a size
        /// taken from a URL, say) is an error instead of an allocation the process cannot survive.
        /// Default: ``defaultMaximumOutputPixelCount`` (100 megapixels, the decoders' limit for one
        /// frame). Not part of ``identifier``: it never changes what comes out, only whether it does.
        public let maximumOutputPixelCount: Int

        /// The default ``maximumOutputPixelCount``: 100 megapixels.
        public static let defaultMaximumOutputPixelCount = 100_000_000

        /// A processor that scales to `size` as `contentMode` says.
        ///
        /// A size below 1x1, or an output of more than `maximumOutputPixelCount` pixels, is refused
        /// when processing, with ``ImagePipeline/Error/processingFailed(_:processor:reason:)``.
        public init(
            size: PixelSize, contentMode: ContentMode, upscale: Bool = false, crop: Bool = false,
            linearLight: Bool = false,
            maximumOutputPixelCount: Int = ImageProcessors.Resize.defaultMaximumOutputPixelCount
        ) {
            self.size = size
            self.contentMode = contentMode
            self.upscale = upscale
            self.crop = crop
            self.linearLight = linearLight
            self.maximumOutputPixelCount = maximumOutputPixelCount
        }

        /// `resize(256x256,fit)`, `resize(256x256,fill,crop)`, with `,upscale` when enlarging is
        /// allowed and `,linear` in linear light.
        public var identifier: String {
            var parts = ["\(size)"]
            switch contentMode {
            case .aspectFit: parts.append("fit")
            case .aspectFill: parts.append(crop ? "fill,crop" : "fill")
            }
            if upscale { parts.append("upscale") }
            if linearLight { parts.append("linear") }
            return "resize(\(parts.joined(separator: ",")))"
        }

        /// The resized bitmap, in the alpha mode of `bitmap`.
        /// - Throws: ``ImagePipeline/Error/processingFailed(_:processor:reason:)`` when ``size`` or
        ///   the bitmap is empty, or the output would exceed ``maximumOutputPixelCount``.
        public func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
            try resize(bitmap, reportingAs: identifier)
        }

        /// The container's image and frames resized; in linear light only when ``linearLight`` is
        /// on and the pixels are in sRGB or in a kept profile with sRGB's transfer curve.
        /// - Throws: ``ImagePipeline/Error/processingFailed(_:processor:reason:)`` as the bitmap's
        ///   resize does.
        public func process(_ container: ImageContainer) throws(ImagePipeline.Error) -> ImageContainer {
            let resize = linearLight && !container.pixelsHaveSRGBTransfer ? onStoredValues : self
            return try container.mapBitmaps(processor: identifier, gainMap: self) { bitmap throws(ImagePipeline.Error) in
                try resize.resize(bitmap, reportingAs: identifier)
            }
        }

        /// This resize with ``linearLight`` off.
        private var onStoredValues: Self {
            Self(
                size: size, contentMode: contentMode, upscale: upscale, crop: crop, linearLight: false,
                maximumOutputPixelCount: maximumOutputPixelCount)
        }

        /// The size an image of `imageSize` comes out at (`imageSize` itself when the target or the
        /// image is empty, which processing refuses). A side too long for `Int` comes out as
        /// `Int.max`; processing refuses such sizes (``maximumOutputPixelCount``).
        public func outputSize(for imageSize: PixelSize) -> PixelSize {
            plan(for: imageSize)?.size ?? imageSize
        }

        /// Resizes `bitmap`, naming `processor` in errors (the thumbnail processor shares this).
        func resize(_ bitmap: Bitmap, reportingAs processor: String) throws(ImagePipeline.Error) -> Bitmap {
            guard size.width >= 1, size.height >= 1 else {
                throw .processingFailed(
                    nil, processor: processor,
                    reason: "the target size \(size) is empty; width and height must each be at least 1 pixel")
            }
            let imageSize = PixelSize(width: bitmap.width, height: bitmap.height)
            guard let plan = plan(for: imageSize) else {
                throw .processingFailed(
                    nil, processor: processor,
                    reason: "the image is empty (\(imageSize) pixels), so there is nothing to resize")
            }
            let (pixels, overflow) = plan.size.width.multipliedReportingOverflow(by: plan.size.height)
            if overflow || pixels > maximumOutputPixelCount {
                let count = overflow ? "more than \(Int.max)" : "\(pixels)"
                let remedy =
                    overflow
                    ? "no limit allows that; ask for a smaller size"
                    : "ask for a smaller size, or raise ImageProcessors.Resize.maximumOutputPixelCount to at least \(pixels)"
                throw .processingFailed(
                    nil, processor: processor,
                    reason: "resizing \(imageSize) to \(plan.size) would make \(count) pixels, more than "
                        + "maximumOutputPixelCount (\(maximumOutputPixelCount)); \(remedy)")
            }
            return Resampler.resample(bitmap, region: plan.region, to: plan.size, linearLight: linearLight)
        }

        /// A scaled side in whole pixels: at least 1, and `Int.max` when it does not fit in `Int`.
        private static func pixels(_ length: Double) -> Int {
            let rounded = length.rounded()
            guard rounded < Double(Int.max) else { return Int.max }  // Double(Int.max) is 2^63
            return max(1, Int(rounded))
        }

        /// The output size and the part of the image it shows; nil for an empty image or target.
        private func plan(for imageSize: PixelSize) -> (size: PixelSize, region: Resampler.Region)? {
            guard size.width >= 1, size.height >= 1, imageSize.width >= 1, imageSize.height >= 1 else { return nil }
            let width = Double(imageSize.width)
            let height = Double(imageSize.height)
            let horizontalScale = Double(size.width) / width
            let verticalScale = Double(size.height) / height
            var scale =
                switch contentMode {
                case .aspectFit: min(horizontalScale, verticalScale)
                case .aspectFill: max(horizontalScale, verticalScale)
                }
            if !upscale { scale = min(scale, 1) }
            var output = PixelSize(width: Self.pixels(width * scale), height: Self.pixels(height * scale))
            let whole = Resampler.Region(x: 0, y: 0, width: width, height: height)
            guard contentMode == .aspectFill, crop else { return (output, whole) }

            // Show the centre part of the image that, scaled, covers the kept pixels exactly.
            output.width = min(output.width, size.width)
            output.height = min(output.height, size.height)
            let shownWidth = min(width, Double(output.width) / scale)
            let shownHeight = min(height, Double(output.height) / scale)
            var origin = (x: (width - shownWidth) / 2, y: (height - shownHeight) / 2)
            if scale == 1 {  // a plain crop: keep it on whole pixels so no pixel is blurred
                origin = (origin.x.rounded(.down), origin.y.rounded(.down))
            }
            let region = Resampler.Region(x: origin.x, y: origin.y, width: shownWidth, height: shownHeight)
            return (output, region)
        }
    }
}

extension ImageProcessors.Resize: GainMapTransforming {
    /// The map resized as the base was: the part of it the base shows, at the same share of its size.
    package func transformedGainMap(_ map: GainMap, source: PixelSize, result: PixelSize) -> GainMap? {
        guard let plan = plan(for: source) else { return nil }
        return map.replacingBitmap(GainMapGeometry.resample(map.bitmap, base: source, region: plan.region, to: plan.size))
    }
}
