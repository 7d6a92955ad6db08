extension ImageProcessors {
    /// Adds space around an image, filled with one colour (imgproxy's `padding` and `extend`): the
    /// image keeps its pixels and sits `left` pixels from the left and `top` from the top of a larger
    /// canvas.
    ///
    /// A translucent fill makes the result transparent (``Bitmap/AlphaMode/straight``, or
    /// premultiplied when the image was); an opaque fill on an opaque image stays opaque.
    public struct Padding: BitmapProcessing, Hashable {
        public let top: Int
        public let right: Int
        public let bottom: Int
        public let left: Int
        /// What the added space shows, in straight alpha. Default: transparent.
        public let color: RGBA
        /// Largest `width * height` the output may have, so that padding from a URL cannot ask for an
        /// allocation the process cannot survive. Default: ``ImageProcessors/Resize/defaultMaximumOutputPixelCount``.
        public let maximumOutputPixelCount: Int

        /// Padding of the given sides, in pixels; negative sides are refused when processing.
        public init(
            top: Int, right: Int, bottom: Int, left: Int, color: RGBA = RGBA(0, 0, 0, 0),
            maximumOutputPixelCount: Int = ImageProcessors.Resize.defaultMaximumOutputPixelCount
        ) {
            self.top = top
            self.right = right
            self.bottom = bottom
            self.left = left
            self.color = color
            self.maximumOutputPixelCount = maximumOutputPixelCount
        }

        /// `padding(1,2,3,4,#ffffff00)`: top, right, bottom, left, RGBA.
        public var identifier: String {
            let hex = [color.r, color.g, color.b, color.a].map { String($0 / 16, radix: 16) + String($0 % 16, radix: 16) }.joined()
            return "padding(\(top),\(right),\(bottom),\(left),#\(hex))"
        }

        /// The padded bitmap.
        /// - Throws: ``ImagePipeline/Error/processingFailed(_:processor:reason:)`` for a negative side
        ///   or an output above ``maximumOutputPixelCount``.
        public func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
            guard top >= 0, right >= 0, bottom >= 0, left >= 0 else {
                throw .processingFailed(nil, processor: identifier, reason: "a padding side is negative; use 0 or more pixels")
            }
            if top == 0 && right == 0 && bottom == 0 && left == 0 { return bitmap }
            let (horizontal, overflowA) = left.addingReportingOverflow(right)
            let (width, overflowB) = bitmap.width.addingReportingOverflow(horizontal)
            let (vertical, overflowC) = top.addingReportingOverflow(bottom)
            let (height, overflowD) = bitmap.height.addingReportingOverflow(vertical)
            let (count, overflowE) = width.multipliedReportingOverflow(by: height)
            guard !(overflowA || overflowB || overflowC || overflowD || overflowE), count <= maximumOutputPixelCount else {
                throw .processingFailed(
                    nil, processor: identifier,
                    reason: "padding \(bitmap.width)x\(bitmap.height) would make more than maximumOutputPixelCount (\(maximumOutputPixelCount)) pixels")
            }
            let alphaMode: Bitmap.AlphaMode =
                color.a == 255 ? bitmap.alphaMode : (bitmap.alphaMode == .premultiplied ? .premultiplied : .straight)
            let fill =
                alphaMode == .premultiplied
                ? RGBA(
                    UInt8((Int(color.r) * Int(color.a) + 127) / 255), UInt8((Int(color.g) * Int(color.a) + 127) / 255),
                    UInt8((Int(color.b) * Int(color.a) + 127) / 255), color.a)
                : color
            var canvas = Bitmap(width: width, height: height, fill: fill)
            canvas.alphaMode = alphaMode
            let rowBytes = bitmap.bytesPerRow
            canvas.pixels.withUnsafeMutableBufferPointer { target in
                bitmap.pixels.withUnsafeBufferPointer { source in
                    for row in 0..<bitmap.height {
                        let from = row * rowBytes
                        let to = ((row + top) * width + left) * Bitmap.bytesPerPixel
                        for index in 0..<rowBytes { target[to + index] = source[from + index] }
                    }
                }
            }
            return canvas
        }
    }
}
