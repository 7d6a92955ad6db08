import Foundation

extension ImageProcessors {
    /// Cuts a ``width`` x ``height`` window out of an image where its content is most interesting,
    /// as libvips' `smartcrop` does (imgproxy's `gravity:sm`):
    ///
    /// - ``Strategy/attention`` (the default): a map of what draws the eye — edges (a Sobel filter
    ///   on CIE lightness), skin tones (a and b within the ranges libvips was trained on, lightness
    ///   above 15) and strongly saturated colour (chroma above 60) — averaged on a 32 x 32 grid,
    ///   blurred to the window's scale, and the window centred on its peak.
    /// - ``Strategy/entropy``: slices are shaved off whichever side has less lightness entropy, in
    ///   eight steps, until the window is left.
    ///
    /// The analysis runs on a copy at most 256 pixels a side, so its cost does not depend on the
    /// image's size; only the final cut touches every pixel. A window larger than the image is
    /// limited to the image.
    public struct SmartCrop: BitmapProcessing, Hashable {
        /// How interest is measured.
        public enum Strategy: String, Sendable, Hashable, CaseIterable {
            case attention
            case entropy
        }

        public let width: Int
        public let height: Int
        public let strategy: Strategy

        /// A crop to `width` x `height` pixels where `strategy` finds the most interest.
        public init(width: Int, height: Int, strategy: Strategy = .attention) {
            self.width = width
            self.height = height
            self.strategy = strategy
        }

        /// `smartCrop(300x200,attention)`.
        public var identifier: String { "smartCrop(\(width)x\(height),\(strategy.rawValue))" }

        /// The window cut out of `bitmap`.
        /// - Throws: ``ImagePipeline/Error/processingFailed(_:processor:reason:)`` for an empty window
        ///   or image.
        public func process(_ bitmap: Bitmap) throws(ImagePipeline.Error) -> Bitmap {
            guard width > 0, height > 0, bitmap.width > 0, bitmap.height > 0 else {
                throw .processingFailed(
                    nil, processor: identifier, reason: "cannot cut \(width)x\(height) out of \(bitmap.width)x\(bitmap.height)")
            }
            let origin = origin(in: bitmap)
            return try ImageProcessors.Crop(x: origin.x, y: origin.y, width: min(width, bitmap.width), height: min(height, bitmap.height))
                .process(bitmap)
        }

        /// The window's top-left corner in `bitmap` (the window limited to the image).
        public func origin(in bitmap: Bitmap) -> (x: Int, y: Int) {
            let window = (width: min(max(width, 1), bitmap.width), height: min(max(height, 1), bitmap.height))
            guard window.width < bitmap.width || window.height < bitmap.height else { return (0, 0) }
            let analysis = Self.analysisCopy(of: bitmap)
            let scaleX = Double(bitmap.width) / Double(analysis.width)
            let scaleY = Double(bitmap.height) / Double(analysis.height)
            let lab = LabPlanes(analysis)
            let (x, y): (Double, Double)
            switch strategy {
            case .attention:
                (x, y) = Self.attentionOrigin(
                    lab, window: (Double(window.width) / scaleX, Double(window.height) / scaleY))
            case .entropy:
                (x, y) = Self.entropyOrigin(
                    lab, window: (max(1, Int(Double(window.width) / scaleX)), max(1, Int(Double(window.height) / scaleY))))
            }
            let left = Int((x * scaleX).rounded())
            let top = Int((y * scaleY).rounded())
            return (min(max(left, 0), bitmap.width - window.width), min(max(top, 0), bitmap.height - window.height))
        }

        /// The largest side the analysis looks at.
        static let analysisSide = 256

        private static func analysisCopy(of bitmap: Bitmap) -> Bitmap {
            let longer = max(bitmap.width, bitmap.height)
            guard longer > analysisSide else { return bitmap }
            let scale = Double(analysisSide) / Double(longer)
            let size = PixelSize(
                width: max(1, Int((Double(bitmap.width) * scale).rounded())),
                height: max(1, Int((Double(bitmap.height) * scale).rounded())))
            return Resampler.resample(bitmap, to: size)
        }

        /// libvips' attention map, on the analysis copy: the top-left corner of a `window` centred on
        /// the blurred map's peak (in the copy's pixels, unclamped).
        static func attentionOrigin(_ lab: LabPlanes, window: (Double, Double)) -> (Double, Double) {
            let (width, height) = (lab.width, lab.height)
            var score = [Float](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    let index = y * width + x
                    var value: Float = 0
                    if x > 0, y > 0, x < width - 1, y < height - 1 {
                        func l(_ dx: Int, _ dy: Int) -> Float { lab.lightness[(y + dy) * width + x + dx] }
                        let horizontal = (l(1, -1) + 2 * l(1, 0) + l(1, 1)) - (l(-1, -1) + 2 * l(-1, 0) + l(-1, 1))
                        let vertical = (l(-1, 1) + 2 * l(0, 1) + l(1, 1)) - (l(-1, -1) + 2 * l(0, -1) + l(1, -1))
                        value = abs(horizontal) + abs(vertical)
                    }
                    let (a, b) = (lab.a[index], lab.b[index])
                    if a >= 3, a <= 22, b >= 4, b <= 31, lab.lightness[index] >= 15 { value += 255 }  // skin
                    if (a * a + b * b).squareRoot() > 60 { value += 255 }  // saturated
                    score[index] = value
                }
            }
            // Averaged on a grid of at most 32 x 32 cells.
            let columns = min(32, width)
            let rows = min(32, height)
            let cellWidth = Double(width) / Double(columns)
            let cellHeight = Double(height) / Double(rows)
            var grid = [Float](repeating: 0, count: columns * rows)
            var counts = [Float](repeating: 0, count: columns * rows)
            for y in 0..<height {
                let row = min(rows - 1, Int(Double(y) / cellHeight))
                for x in 0..<width {
                    let cell = row * columns + min(columns - 1, Int(Double(x) / cellWidth))
                    grid[cell] += score[y * width + x]
                    counts[cell] += 1
                }
            }
            for cell in grid.indices where counts[cell] > 0 { grid[cell] /= counts[cell] }
            // Blurred to the window's size in cells, then the peak.
            let sigma = ((window.0 / cellWidth) * (window.0 / cellWidth) + (window.1 / cellHeight) * (window.1 / cellHeight))
                .squareRoot() / 6
            if sigma > 0.2 {
                var pixels = FloatPixels(grid: grid, width: columns, height: rows)
                pixels.blur(sigma: sigma)
                grid = stride(from: 0, to: pixels.values.count, by: 4).map { pixels.values[$0] }
            }
            var peak = 0
            for cell in grid.indices where grid[cell] > grid[peak] { peak = cell }
            // The crop is centred on the middle of the peak's cell.
            let peakX = (Double(peak % columns) + 0.5) * cellWidth
            let peakY = (Double(peak / columns) + 0.5) * cellHeight
            return (peakX - window.0 / 2, peakY - window.1 / 2)
        }

        /// libvips' entropy crop on the analysis copy's lightness.
        static func entropyOrigin(_ lab: LabPlanes, window: (Int, Int)) -> (Double, Double) {
            var (left, top, width, height) = (0, 0, lab.width, lab.height)
            let step = max(Int((Double(width - window.0) / 8).rounded(.up)), Int((Double(height - window.1) / 8).rounded(.up)), 1)
            func entropy(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Double {
                var histogram = [Int](repeating: 0, count: 256)
                for row in y..<(y + h) {
                    for column in x..<(x + w) {
                        histogram[Int(min(max(lab.lightness[row * lab.width + column] * 2.55, 0), 255))] += 1
                    }
                }
                let total = Double(w * h)
                return histogram.reduce(0) { sum, count in
                    count == 0 ? sum : sum - Double(count) / total * log2(Double(count) / total)
                }
            }
            while width > window.0 || height > window.1 {
                let sliceWidth = min(width - window.0, step)
                let sliceHeight = min(height - window.1, step)
                if sliceWidth > 0 {
                    let leftScore = entropy(left, top, sliceWidth, height)
                    let rightScore = entropy(left + width - sliceWidth, top, sliceWidth, height)
                    width -= sliceWidth
                    if leftScore < rightScore { left += sliceWidth }
                }
                if sliceHeight > 0 {
                    let topScore = entropy(left, top, width, sliceHeight)
                    let bottomScore = entropy(left, top + height - sliceHeight, width, sliceHeight)
                    height -= sliceHeight
                    if topScore < bottomScore { top += sliceHeight }
                }
            }
            return (Double(left), Double(top))
        }
    }
}
