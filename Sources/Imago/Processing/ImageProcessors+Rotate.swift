extension ImageProcessors {
    /// Turns an image clockwise by a multiple of 90 degrees, pixel for pixel (imgproxy's `rotate`).
    public struct Rotate: BitmapProcessing, Hashable {
        /// Clockwise quarter turns, 0...3.
        public let quarterTurns: Int

        /// A rotation by `degrees` clockwise, rounded to the nearest multiple of 90 (negative turns
        /// counter-clockwise).
        public init(degrees: Int) {
            let turns = Int((Double(degrees) / 90).rounded())
            quarterTurns = ((turns % 4) + 4) % 4
        }

        /// `rotate(90)`.
        public var identifier: String { "rotate(\(quarterTurns * 90))" }

        /// The turned bitmap: width and height swap for 90 and 270 degrees.
        public func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
            guard quarterTurns != 0, bitmap.width > 0, bitmap.height > 0 else { return bitmap }
            let (width, height) = (bitmap.width, bitmap.height)
            let swaps = quarterTurns % 2 == 1
            let outputWidth = swaps ? height : width
            let outputHeight = swaps ? width : height
            var pixels = [UInt8](repeating: 0, count: bitmap.pixels.count)
            let turns = quarterTurns
            bitmap.pixels.withUnsafeBytes { source in
                pixels.withUnsafeMutableBytes { target in
                    let source = source.bindMemory(to: UInt32.self)
                    let target = target.bindMemory(to: UInt32.self)
                    for y in 0..<height {
                        for x in 0..<width {
                            // Where source pixel (x, y) lands.
                            let (tx, ty): (Int, Int) =
                                switch turns {
                                case 1: (height - 1 - y, x)
                                case 2: (width - 1 - x, height - 1 - y)
                                default: (y, width - 1 - x)
                                }
                            target[ty * outputWidth + tx] = source[y * width + x]
                        }
                    }
                }
            }
            return Bitmap(width: outputWidth, height: outputHeight, alphaMode: bitmap.alphaMode, pixels: pixels)
        }
    }
}
