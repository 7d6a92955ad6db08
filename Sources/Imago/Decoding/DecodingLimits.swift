import struct Foundation.URL

/// Ceilings that keep hostile or absurd images from exhausting memory or time.
///
/// Every limit is checked from the header, before any pixel memory is allocated. Two kinds bound
/// two costs:
/// - what a decoder *holds*: ``maximumPixelCount`` and ``maximumDimension`` apply to the bitmap it
///   allocates, after DCT scaling (JPEG), shrink-on-load (PNG, WebP) or box reduction, so a
///   20000x20000 JPEG thumbnailed to 256 pixels (held at 1/8 and less) passes;
/// - what a decode *reads*: ``maximumSourcePixelCount`` and ``maximumSourceDimension`` apply to
///   the size the header declares, because even a streamed decode costs CPU in proportion to the
///   source, and a 65535x65535 PNG of zeros is 16 MB on the wire and 17 GB to inflate.
///
/// Every violation names the property to raise and the value that would have been needed.
public struct DecodingLimits: Sendable, Hashable {
    /// Largest `width * height` of one bitmap a decoder allocates (after any scaling on load).
    /// Default: 100 megapixels (400 MB of RGBA), between Pillow's 179 and imgproxy's 50.
    public var maximumPixelCount: Int = 100_000_000
    /// Largest width or height of one bitmap a decoder allocates. Default: 32,768 pixels.
    public var maximumDimension: Int = 32_768
    /// Largest `width * height` a header may declare, whatever size the decoder will hold.
    ///
    /// Default: 500 megapixels. Streamed, such a source still costs its whole decode in CPU: about
    /// 1 s for a baseline JPEG at 1/8 scale and 3–5 s of inflate and unfiltering for a PNG on a
    /// current core, which is as much as one image request should spend. 20000x20000 (400 MP)
    /// passes; a 65535x65535 "zip bomb" (4.3 gigapixels, 17 GB of RGBA to inflate) is refused
    /// from its header.
    public var maximumSourcePixelCount: Int = 500_000_000
    /// Largest width or height a header may declare. Default: 65,500 pixels, libjpeg's own
    /// ceiling (`JPEG_MAX_DIMENSION`); the pixel count above is the binding limit in practice.
    public var maximumSourceDimension: Int = 65_500
    /// Most frames decoded from an animated image. Default: 1,000.
    public var maximumFrameCount: Int = 1_000
    /// Largest sum of pixels over all frames of an animation. Default: 400 megapixels.
    public var maximumTotalFramePixels: Int = 400_000_000
    /// Largest encoded input accepted by a decoder. Default: 50 MiB.
    public var maximumEncodedSize: Int = 50 * 1024 * 1024
    /// Most scans a progressive JPEG may have (hostile files use thousands to burn CPU).
    /// Default: 100.
    public var maximumProgressiveScans: Int = 100
    /// Largest embedded colour profile read (inflated, for a PNG's `iCCP`). Default: 4 MiB, above
    /// the largest print profiles (CMYK lookup tables of 1–3 MB). A larger one is not read: the
    /// pixels are read as sRGB and ``ImageContainer/repairs`` says why, as for any unusable profile.
    public var maximumColorProfileSize: Int = 4 * 1024 * 1024
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
        /// The header declares more pixels than ``DecodingLimits/maximumSourcePixelCount``.
        case sourcePixelCount(width: Int, height: Int, limit: Int)
        /// The header declares a side longer than ``DecodingLimits/maximumSourceDimension``.
        case sourceDimension(width: Int, height: Int, limit: Int)

        /// Which limit was passed, by how much, and which property raises it.
        public var description: String {
            switch self {
            case .pixelCount(let width, let height, let limit):
                "decoding needs a \(width)x\(height) bitmap, \(Self.product(width, height)) pixels, more than the limit of \(limit); "
                    + Self.raise("maximumPixelCount", Self.product(width, height))
            case .dimension(let width, let height, let limit):
                "decoding needs a \(width)x\(height) bitmap, with a side longer than the limit of \(limit) pixels; "
                    + Self.raise("maximumDimension", Self.longer(width, height))
            case .sourcePixelCount(let width, let height, let limit):
                "the header declares \(width)x\(height), \(Self.product(width, height)) pixels, more than the limit of \(limit) for a source; "
                    + Self.raise("maximumSourcePixelCount", Self.product(width, height))
            case .sourceDimension(let width, let height, let limit):
                "the header declares \(width)x\(height), a side longer than the limit of \(limit) pixels for a source; "
                    + Self.raise("maximumSourceDimension", Self.longer(width, height))
            case .frameCount(let count, let limit):
                "the animation has \(count) frames, more than the limit of \(limit); " + Self.raise("maximumFrameCount", "\(count)")
            case .totalFramePixels(let count, let limit):
                "the animation's frames hold \(count) pixels in all, more than the limit of \(limit); "
                    + Self.raise("maximumTotalFramePixels", count == .max ? "more than \(Int.max)" : "\(count)")
            case .encodedSize(let bytes, let limit):
                "the encoded image is \(bytes) bytes, more than the limit of \(limit); " + Self.raise("maximumEncodedSize", "\(bytes)")
            case .progressiveScans(let limit):
                "the progressive JPEG has more than \(limit) scans; "
                    + Self.raise("maximumProgressiveScans", "more than \(limit)")
            }
        }

        /// "raise DecodingLimits.name to at least needed to accept it".
        private static func raise(_ property: String, _ needed: String) -> String {
            if needed.hasPrefix("more than") { return "no value of DecodingLimits.\(property) can accept it (\(needed))" }
            return "raise DecodingLimits.\(property) to at least \(needed) to accept it"
        }

        /// The longer side, or "more than Int.max" for a negative one (a signed header field).
        private static func longer(_ width: Int, _ height: Int) -> String {
            width < 0 || height < 0 ? "more than \(Int.max)" : "\(max(width, height))"
        }

        /// `width * height` in words, "more than Int.max" when it does not fit.
        private static func product(_ width: Int, _ height: Int) -> String {
            let (product, overflow) = width.multipliedReportingOverflow(by: height)
            return overflow ? "more than \(Int.max)" : "\(product)"
        }
    }

    /// Checks the size a header declares against ``maximumSourceDimension`` and
    /// ``maximumSourcePixelCount``, before anything is decoded.
    ///
    /// A negative side counts as too long and an overflowing product as too many pixels.
    public func checkSource(width: Int, height: Int, url: URL?) throws(ImagePipeline.Error) {
        if let violation = Self.violation(
            width: width, height: height, maximumDimension: maximumSourceDimension,
            maximumPixelCount: maximumSourcePixelCount, dimension: Violation.sourceDimension,
            pixelCount: Violation.sourcePixelCount)
        {
            throw .limitExceeded(url, violation)
        }
    }

    /// Checks the size of one bitmap a decoder is about to allocate (after any scaling on load);
    /// throws ``ImagePipeline/Error/limitExceeded(_:_:)``.
    ///
    /// A negative side (a header read into a signed field) counts as too long, and a product that
    /// overflows as too many pixels, whatever the limits are set to.
    public func check(width: Int, height: Int, url: URL?) throws(ImagePipeline.Error) {
        if let violation = Self.violation(
            width: width, height: height, maximumDimension: maximumDimension, maximumPixelCount: maximumPixelCount,
            dimension: Violation.dimension, pixelCount: Violation.pixelCount)
        {
            throw .limitExceeded(url, violation)
        }
    }

    /// The side or pixel-count violation of `width` x `height` against a pair of limits, if any:
    /// a negative side counts as too long, an overflowing product as too many pixels.
    private static func violation(
        width: Int, height: Int, maximumDimension: Int, maximumPixelCount: Int,
        dimension: (_ width: Int, _ height: Int, _ limit: Int) -> Violation,
        pixelCount: (_ width: Int, _ height: Int, _ limit: Int) -> Violation
    ) -> Violation? {
        if width > maximumDimension || height > maximumDimension || width < 0 || height < 0 {
            return dimension(width, height, maximumDimension)
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow || pixels > maximumPixelCount ? pixelCount(width, height, maximumPixelCount) : nil
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
