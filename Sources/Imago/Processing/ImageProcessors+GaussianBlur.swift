extension ImageProcessors {
    /// Blurs an image with a Gaussian of standard deviation ``sigma`` pixels, the blur imgproxy's
    /// `blur` and libvips' `gaussblur` apply.
    ///
    /// Small sigmas (below 2) use the exact separable kernel, cut at three sigmas; larger ones three
    /// successive box filters of matched widths, which approximate the Gaussian within a few percent
    /// at a cost that does not grow with sigma (a URL's sigma of 100 costs what a sigma of 2 does).
    /// The filter runs in premultiplied alpha, so transparent pixels' colour does not bleed in; edges
    /// repeat their outermost pixels. The size and alpha mode stay.
    public struct GaussianBlur: BitmapProcessing, Hashable {
        /// Standard deviation in pixels; 0 (or less) leaves the image as it is.
        public let sigma: Double

        /// A blur of standard deviation `sigma` pixels.
        public init(sigma: Double) {
            self.sigma = sigma
        }

        /// `gaussianBlur(2.5)`.
        public var identifier: String { "gaussianBlur(\(sigma))" }

        public func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
            guard sigma.isFinite, sigma > 0, bitmap.width > 0, bitmap.height > 0 else { return bitmap }
            var planes = FloatPixels(bitmap)
            planes.blur(sigma: sigma)
            return planes.bitmap(alphaMode: bitmap.alphaMode)
        }
    }
}
