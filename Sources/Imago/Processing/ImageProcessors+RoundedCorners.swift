extension ImageProcessors {
    /// Rounds an image's corners, with an optional border drawn inside its edge.
    ///
    /// The corners are antialiased: each edge pixel's alpha is the share of it the rounded shape
    /// covers. The result has transparency, so its alpha mode is ``Bitmap/AlphaMode/straight``,
    /// unless the input was ``Bitmap/AlphaMode/premultiplied``, which it stays. The image keeps its
    /// size; the border covers its outermost pixels rather than growing it.
    public struct RoundedCorners: BitmapProcessing, Hashable {
        /// A line drawn along the rounded edge, inside the image.
        public struct Border: Sendable, Hashable {
            /// Thickness in pixels.
            public var width: Int
            /// Colour, in straight alpha; a translucent colour lets the image show through.
            public var color: RGBA

            /// A border `width` pixels wide, of `color`.
            public init(width: Int, color: RGBA) {
                self.width = width
                self.color = color
            }
        }

        /// Corner radius in pixels; limited to half the shorter side, which makes a circle or capsule.
        public let radius: Int
        /// The border, if any.
        public let border: Border?

        /// A processor that rounds corners to `radius` pixels and draws `border` inside the edge.
        ///
        /// A negative radius or border width is refused when processing, with
        /// ``ImagePipeline/Error/processingFailed(_:processor:reason:)``.
        public init(radius: Int, border: Border? = nil) {
            self.radius = radius
            self.border = border
        }

        /// `roundedCorners(16)`, or `roundedCorners(16,border:2,#ff0000ff)` with the border's width
        /// and RGBA colour.
        public var identifier: String {
            guard let border else { return "roundedCorners(\(radius))" }
            let color = [border.color.r, border.color.g, border.color.b, border.color.a]
                .map { String($0 / 16, radix: 16) + String($0 % 16, radix: 16) }.joined()
            return "roundedCorners(\(radius),border:\(border.width),#\(color))"
        }

        /// The bitmap with rounded corners and border, same size; alpha as the type describes.
        /// - Throws: ``ImagePipeline/Error/processingFailed(_:processor:reason:)`` for a negative
        ///   radius or border width.
        public func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
            guard radius >= 0 else {
                throw .processingFailed(
                    nil, processor: identifier, reason: "the corner radius \(radius) is negative; use 0 or more pixels")
            }
            let borderWidth = border?.width ?? 0
            guard borderWidth >= 0 else {
                throw .processingFailed(
                    nil, processor: identifier, reason: "the border width \(borderWidth) is negative; use 0 or more pixels")
            }
            var result = bitmap
            if result.alphaMode == .opaque { result.alphaMode = .straight }
            let outer = RoundedRect(bitmap: bitmap, inset: 0, radius: Double(radius))
            let inner = RoundedRect(bitmap: bitmap, inset: Double(borderWidth), radius: Double(radius - borderWidth))
            let borderColor = border.map { premultiplied($0.color) } ?? .zero
            let borderOpacity = Float(border?.color.a ?? 0) / 255
            let premultipliedOutput = result.alphaMode == .premultiplied
            // Only pixels this close to an edge can be touched: the corners and the border.
            let band = Int(max(outer.radius, Double(borderWidth)).rounded(.up)) + 1
            let (width, height) = (bitmap.width, bitmap.height)

            result.pixels.withUnsafeMutableBufferPointer { pixels in
                func shade(x: Int, y: Int) {
                    let coverage = outer.coverage(x: x, y: y)
                    let innerCoverage = borderWidth > 0 ? inner.coverage(x: x, y: y) : coverage
                    guard coverage < 1 || innerCoverage < 1 else { return }  // inside: untouched
                    let ring = coverage - innerCoverage  // the border's share of the pixel
                    let index = (y * width + x) * Bitmap.bytesPerPixel
                    var pixel = SIMD4<Float>(
                        Float(pixels[index]), Float(pixels[index + 1]), Float(pixels[index + 2]),
                        Float(pixels[index + 3]))
                    if !premultipliedOutput {
                        let alpha = pixel.w
                        pixel *= alpha / 255
                        pixel.w = alpha
                    }
                    pixel = borderColor * ring + pixel * (coverage - ring * borderOpacity)
                    if !premultipliedOutput {
                        let alpha = pixel.w
                        pixel = alpha < 0.5 ? .zero : pixel * (255 / alpha)
                        pixel.w = alpha
                    }
                    pixel = pixel.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255)) + 0.5
                    pixels[index] = UInt8(pixel.x)
                    pixels[index + 1] = UInt8(pixel.y)
                    pixels[index + 2] = UInt8(pixel.z)
                    pixels[index + 3] = UInt8(pixel.w)
                }
                for y in 0..<height {
                    if y < band || y >= height - band || 2 * band >= width {
                        for x in 0..<width { shade(x: x, y: y) }
                    } else {
                        for x in 0..<band { shade(x: x, y: y) }
                        for x in (width - band)..<width { shade(x: x, y: y) }
                    }
                }
            }
            return result
        }

        private func premultiplied(_ color: RGBA) -> SIMD4<Float> {
            let alpha = Float(color.a)
            return SIMD4(Float(color.r) * alpha / 255, Float(color.g) * alpha / 255, Float(color.b) * alpha / 255, alpha)
        }
    }
}

/// A rectangle with rounded corners inside a bitmap, measuring how much of each pixel it covers.
private struct RoundedRect {
    let centerX: Double
    let centerY: Double
    let halfWidth: Double
    let halfHeight: Double
    let radius: Double

    /// The bitmap's bounds shrunk by `inset` on every side, with corners of `radius` (clamped to
    /// what fits).
    init(bitmap: Bitmap, inset: Double, radius: Double) {
        centerX = Double(bitmap.width) / 2
        centerY = Double(bitmap.height) / 2
        halfWidth = max(0, centerX - inset)
        halfHeight = max(0, centerY - inset)
        self.radius = min(max(radius, 0), halfWidth, halfHeight)
    }

    /// The share of pixel (x, y) inside the shape, 0...1, from the signed distance of its centre
    /// to the outline: a one-pixel ramp that antialiases curves and is exact on whole-pixel edges.
    func coverage(x: Int, y: Int) -> Float {
        guard halfWidth > 0, halfHeight > 0 else { return 0 }
        let dx = abs(Double(x) + 0.5 - centerX) - (halfWidth - radius)
        let dy = abs(Double(y) + 0.5 - centerY) - (halfHeight - radius)
        let outside = (max(dx, 0) * max(dx, 0) + max(dy, 0) * max(dy, 0)).squareRoot()
        let distance = outside + min(max(dx, dy), 0) - radius
        return Float(min(max(0.5 - distance, 0), 1))
    }
}
