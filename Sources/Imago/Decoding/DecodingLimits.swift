/// Ceilings that keep hostile or absurd images from exhausting memory or time.
///
/// Every limit is checked from the header, before any pixel memory is allocated. The defaults sit
/// between Pillow's (about 179 megapixels) and imgproxy's (50 megapixels).
public struct DecodingLimits: Sendable, Hashable {
    /// Largest accepted `width * height` of one frame. Default: 100 megapixels.
    public var maximumPixelCount: Int = 100_000_000
    /// Largest accepted width or height on its own. Default: 32,768 pixels.
    public var maximumDimension: Int = 32_768
    /// Most frames decoded from an animated image. Default: 1,000.
    public var maximumFrameCount: Int = 1_000
    /// Largest sum of pixels over all frames of an animation. Default: 400 megapixels.
    public var maximumTotalFramePixels: Int = 400_000_000
    /// Largest encoded input accepted by a decoder. Default: 50 MiB.
    public var maximumEncodedSize: Int = 50 * 1024 * 1024
    /// Most scans a progressive JPEG may have (hostile files use thousands to burn CPU).
    /// Default: 100.
    public var maximumProgressiveScans: Int = 100

    /// The defaults.
    public init() {}

    /// A limit that an image exceeded, with the figures.
    public enum Violation: Sendable, Hashable, CustomStringConvertible {
        case pixelCount(width: Int, height: Int, limit: Int)
        case dimension(width: Int, height: Int, limit: Int)
        case frameCount(count: Int, limit: Int)
        case totalFramePixels(count: Int, limit: Int)
        case encodedSize(bytes: Int, limit: Int)
        case progressiveScans(limit: Int)

        public var description: String {
            switch self {
            case .pixelCount(let width, let height, let limit):
                "\(width)x\(height) is \(Self.product(width, height)) pixels, more than the limit of \(limit) (DecodingLimits.maximumPixelCount)"
            case .dimension(let width, let height, let limit):
                "\(width)x\(height) has a side longer than the limit of \(limit) pixels (DecodingLimits.maximumDimension)"
            case .frameCount(let count, let limit):
                "the animation has \(count) frames, more than the limit of \(limit) (DecodingLimits.maximumFrameCount)"
            case .totalFramePixels(let count, let limit):
                "the animation's frames hold \(count) pixels in all, more than the limit of \(limit) (DecodingLimits.maximumTotalFramePixels)"
            case .encodedSize(let bytes, let limit):
                "the encoded image is \(bytes) bytes, more than the limit of \(limit) (DecodingLimits.maximumEncodedSize)"
            case .progressiveScans(let limit):
                "the progressive JPEG has more than \(limit) scans (DecodingLimits.maximumProgressiveScans)"
            }
        }

        /// `width * height` in words, "more than Int.max" when it does not fit.
        private static func product(_ width: Int, _ height: Int) -> String {
            let (product, overflow) = width.multipliedReportingOverflow(by: height)
            return overflow ? "more than \(Int.max)" : "\(product)"
        }
    }

    /// Checks one frame's declared size; throws ``ImagePipeline/Error/limitExceeded(_:_:)``.
    ///
    /// A negative side (a header read into a signed field) counts as too long, and a product that
    /// overflows as too many pixels, whatever the limits are set to.
    public func check(width: Int, height: Int, url: URL?) throws(ImagePipeline.Error) {
        if width > maximumDimension || height > maximumDimension || width < 0 || height < 0 {
            throw .limitExceeded(url, .dimension(width: width, height: height, limit: maximumDimension))
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maximumPixelCount {
            throw .limitExceeded(url, .pixelCount(width: width, height: height, limit: maximumPixelCount))
        }
    }

    /// Checks one frame's size (``check(width:height:url:)``) and returns the bytes of its RGBA
    /// pixels, `width * height * 4`; a product that overflows is over the pixel limit, whatever
    /// the limits are set to.
    func checkedByteCount(width: Int, height: Int, url: URL?) throws(ImagePipeline.Error) -> Int {
        try check(width: width, height: height, url: url)
        let (bytes, overflow) = (width * height).multipliedReportingOverflow(by: Bitmap.bytesPerPixel)
        if overflow { throw .limitExceeded(url, .pixelCount(width: width, height: height, limit: maximumPixelCount)) }
        return bytes
    }

    /// Adds one frame's decoded pixels to an animation's running total and checks it against
    /// ``maximumTotalFramePixels``; an overflowing sum counts as over the limit.
    func addFramePixels(_ pixels: Int, to total: inout Int, url: URL?) throws(ImagePipeline.Error) {
        let (sum, overflow) = total.addingReportingOverflow(pixels)
        total = overflow ? Int.max : sum
        if overflow || sum > maximumTotalFramePixels {
            throw .limitExceeded(url, .totalFramePixels(count: total, limit: maximumTotalFramePixels))
        }
    }

    /// Checks the encoded size; throws ``ImagePipeline/Error/limitExceeded(_:_:)``.
    public func check(encodedSize: Int, url: URL?) throws(ImagePipeline.Error) {
        if encodedSize > maximumEncodedSize {
            throw .limitExceeded(url, .encodedSize(bytes: encodedSize, limit: maximumEncodedSize))
        }
    }
}

import struct Foundation.URL
