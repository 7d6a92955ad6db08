extension ImageProcessors {
    /// Cuts a rectangle out of an image, pixel for pixel, without resampling.
    public struct Crop: BitmapProcessing, Hashable {
        /// Which part of the image to keep.
        public enum Region: Sendable, Hashable {
            /// `width` x `height` pixels whose top-left pixel is at column `x`, row `y`.
            case rect(x: Int, y: Int, width: Int, height: Int)
            /// The largest centred square: as wide as the shorter side.
            case centerSquare
        }

        /// The part of the image to keep.
        public let region: Region

        /// A crop to `width` x `height` pixels whose top-left pixel is at column `x`, row `y`.
        ///
        /// A rectangle that is empty or reaches outside the image is refused when processing, with
        /// ``ImagePipeline/Error/processingFailed(_:processor:reason:)``.
        public init(x: Int, y: Int, width: Int, height: Int) {
            region = .rect(x: x, y: y, width: width, height: height)
        }

        /// A crop to `region`.
        public init(region: Region) {
            self.region = region
        }

        /// A crop to the largest centred square, for avatars and grids.
        public static let centerSquare = ImageProcessors.Crop(region: .centerSquare)

        /// `crop(10,20,100x50)` (x, y, width x height) or `crop(centerSquare)`.
        public var identifier: String {
            switch region {
            case .rect(let x, let y, let width, let height): "crop(\(x),\(y),\(width)x\(height))"
            case .centerSquare: "crop(centerSquare)"
            }
        }

        /// The cropped bitmap, with the same alpha mode.
        /// - Throws: ``ImagePipeline/Error/processingFailed(_:processor:reason:)`` when the rectangle
        ///   is empty or not inside the bitmap.
        public func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
            let (x, y, width, height) = try rect(in: PixelSize(width: bitmap.width, height: bitmap.height))
            if width == bitmap.width && height == bitmap.height { return bitmap }
            var pixels: [UInt8] = []
            pixels.reserveCapacity(width * height * Bitmap.bytesPerPixel)
            bitmap.pixels.withUnsafeBufferPointer { source in
                for row in y..<(y + height) {
                    let start = (row * bitmap.width + x) * Bitmap.bytesPerPixel
                    pixels.append(contentsOf: source[start..<(start + width * Bitmap.bytesPerPixel)])
                }
            }
            return Bitmap(width: width, height: height, alphaMode: bitmap.alphaMode, pixels: pixels)
        }

        /// The rectangle to keep in `bitmap`, checked to be non-empty and inside it.
        private func rect(in bitmap: PixelSize) throws(ImagePipeline.Error) -> (x: Int, y: Int, width: Int, height: Int) {
            switch region {
            case .centerSquare:
                let side = min(bitmap.width, bitmap.height)
                guard side > 0 else {
                    throw .processingFailed(
                        nil, processor: identifier,
                        reason: "the image is empty (\(bitmap.width)x\(bitmap.height) pixels), so it has no square to keep")
                }
                return ((bitmap.width - side) / 2, (bitmap.height - side) / 2, side, side)
            case .rect(let x, let y, let width, let height):
                let described = "the rectangle \(width)x\(height) at (\(x), \(y))"
                guard width > 0, height > 0 else {
                    throw .processingFailed(
                        nil, processor: identifier,
                        reason: "\(described) is empty; width and height must each be at least 1 pixel")
                }
                guard x >= 0, y >= 0, width <= bitmap.width - x, height <= bitmap.height - y else {
                    throw .processingFailed(
                        nil, processor: identifier,
                        reason: "\(described) reaches outside the \(bitmap.width)x\(bitmap.height) image; "
                            + "it must lie within columns 0..<\(bitmap.width) and rows 0..<\(bitmap.height)")
                }
                return (x, y, width, height)
            }
        }
    }
}

extension ImageProcessors.Crop: GainMapTransforming {
    /// The same part of the map, at its own scale.
    package func transformedGainMap(_ map: GainMap, source: PixelSize, result: PixelSize) throws(ImagePipeline.Error) -> GainMap? {
        let (x, y, width, height) = try rect(in: source)
        let region = Resampler.Region(x: Double(x), y: Double(y), width: Double(width), height: Double(height))
        return map.replacingBitmap(GainMapGeometry.resample(map.bitmap, base: source, region: region, to: PixelSize(width: width, height: height)))
    }
}
