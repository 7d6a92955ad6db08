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
                "\(width)x\(height) is \(width * height) pixels, more than the limit of \(limit)"
            case .dimension(let width, let height, let limit):
                "\(width)x\(height) has a side longer than the limit of \(limit) pixels"
            case .frameCount(let count, let limit):
                "the animation has \(count) frames, more than the limit of \(limit)"
            case .totalFramePixels(let count, let limit):
                "the animation's frames hold \(count) pixels in all, more than the limit of \(limit)"
            case .encodedSize(let bytes, let limit):
                "the encoded image is \(bytes) bytes, more than the limit of \(limit)"
            case .progressiveScans(let limit):
                "the progressive JPEG has more than \(limit) scans"
            }
        }
    }

    /// Checks one frame's declared size; throws ``ImagePipeline/Error/limitExceeded(_:_:)``.
    public func check(width: Int, height: Int, url: URL?) throws(ImagePipeline.Error) {
        if width > maximumDimension || height > maximumDimension {
            throw .limitExceeded(url, .dimension(width: width, height: height, limit: maximumDimension))
        }
        if width.multipliedReportingOverflow(by: height).partialValue > maximumPixelCount {
            throw .limitExceeded(url, .pixelCount(width: width, height: height, limit: maximumPixelCount))
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
