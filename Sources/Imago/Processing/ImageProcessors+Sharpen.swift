extension ImageProcessors {
    /// Sharpens an image with an unsharp mask: each pixel moves away from its Gaussian-blurred
    /// surroundings (``sigma`` pixels) by ``amount`` times the difference, which steepens edges and
    /// leaves flat areas alone. What imgproxy's `sharpen` asks for; libvips' `sharpen` does the same
    /// on lightness with a threshold, this one on every colour channel without one.
    ///
    /// Alpha is kept as it is; the size and alpha mode stay.
    public struct Sharpen: BitmapProcessing, Hashable {
        /// The radius of the mask, as a Gaussian's standard deviation in pixels; 0 (or less) leaves the
        /// image as it is.
        public let sigma: Double
        /// How much of the difference is added: 1 doubles the local contrast of fine detail. Default: 1.
        public let amount: Double

        /// A sharpen of mask `sigma` pixels and strength `amount`.
        public init(sigma: Double, amount: Double = 1) {
            self.sigma = sigma
            self.amount = amount
        }

        /// `sharpen(0.5,1.0)`.
        public var identifier: String { "sharpen(\(sigma),\(amount))" }

        public func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
            guard sigma.isFinite, sigma > 0, amount.isFinite, amount != 0, bitmap.width > 0, bitmap.height > 0 else { return bitmap }
            let original = FloatPixels(bitmap)
            var blurred = original
            blurred.blur(sigma: sigma)
            let strength = Float(amount)
            original.values.withUnsafeBufferPointer { original in
                blurred.values.withUnsafeMutableBufferPointer { values in
                    var index = 0
                    while index < values.count {
                        for channel in 0..<3 {
                            let value = original[index + channel]
                            // Premultiplied colour never exceeds its alpha.
                            values[index + channel] = min(max(value + (value - values[index + channel]) * strength, 0), original[index + 3])
                        }
                        values[index + 3] = original[index + 3]
                        index += 4
                    }
                }
            }
            return blurred.bitmap(alphaMode: bitmap.alphaMode)
        }
    }
}
