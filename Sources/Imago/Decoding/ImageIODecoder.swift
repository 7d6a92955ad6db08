#if canImport(ImageIO) && !os(Linux)
import Foundation
import ImageIO
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// Decodes with ImageIO on Apple platforms: the same limits, frames and errors as the Linux codecs.
///
/// Every frame goes through `CGImageSourceCreateThumbnailAtIndex`, which applies the EXIF
/// orientation and, given a target size, decodes no larger than needed. Kept trivial because it
/// cannot be compiled on Linux, where the project is tested.
struct ImageIODecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { true }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        let limits = context.limits
        guard let source = CGImageSourceCreateWithData(data as CFData, nil), CGImageSourceGetCount(source) > 0 else {
            throw .decodingFailed(context.url, context.format, reason: "ImageIO found no image in the data")
        }
        let count = context.decodesAllFrames ? CGImageSourceGetCount(source) : 1
        if count > limits.maximumFrameCount {
            throw .limitExceeded(context.url, .frameCount(count: count, limit: limits.maximumFrameCount))
        }
        var frames: [AnimationFrame] = []
        var totalPixels = 0
        for index in 0..<count {
            let properties = CGImageSourceCopyPropertiesAtIndex(source, index, nil) as? [CFString: Any] ?? [:]
            let width = properties[kCGImagePropertyPixelWidth] as? Int ?? 0
            let height = properties[kCGImagePropertyPixelHeight] as? Int ?? 0
            try limits.check(width: width, height: height, url: context.url)
            try limits.addFramePixels(width * height, to: &totalPixels, url: context.url)
            try context.checkCancellation()
            guard CGImageSourceGetStatusAtIndex(source, index) == .statusComplete else {
                throw .decodingFailed(context.url, context.format, reason: "ImageIO reports frame \(index + 1) incomplete")
            }
            let options: [CFString: Any] = [
                kCGImageSourceCreateThumbnailFromImageAlways: true,
                kCGImageSourceCreateThumbnailWithTransform: true,
                kCGImageSourceShouldCacheImmediately: true,
                kCGImageSourceThumbnailMaxPixelSize: max(context.targetPixelSize ?? max(width, height), 1),
            ]
            guard let image = CGImageSourceCreateThumbnailAtIndex(source, index, options as CFDictionary) else {
                throw .decodingFailed(context.url, context.format, reason: "ImageIO could not decode frame \(index + 1)")
            }
            frames.append(AnimationFrame(image: Self.platformImage(image), duration: Self.duration(properties)))
        }
        return ImageContainer(image: frames[0].image, format: context.format, frames: frames.count > 1 ? frames : [])
    }

    private static func platformImage(_ image: CGImage) -> PlatformImage {
        #if canImport(UIKit)
        UIImage(cgImage: image)
        #else
        NSImage(cgImage: image, size: .zero)
        #endif
    }

    /// The frame's delay; 10 ms or less plays as 100 ms, as in browsers and the Linux decoders.
    private static func duration(_ properties: [CFString: Any]) -> Duration {
        let gif = properties[kCGImagePropertyGIFDictionary] as? [CFString: Any]
        let webp = properties[kCGImagePropertyWebPDictionary] as? [CFString: Any]
        let seconds =
            gif?[kCGImagePropertyGIFUnclampedDelayTime] as? Double
            ?? webp?[kCGImagePropertyWebPUnclampedDelayTime] as? Double ?? 0
        return seconds <= 0.01 ? .milliseconds(100) : .milliseconds(Int((seconds * 1000).rounded()))
    }
}
#endif
