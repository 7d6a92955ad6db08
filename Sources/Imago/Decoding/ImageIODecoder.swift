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
/// orientation and, given a target size, decodes no larger than needed, in the file's own colour
/// space (ImageIO reads ICC profiles and CICP tags). With ``ColorProfileHandling/convertToSRGB``
/// a frame in another space is drawn into an sRGB bitmap (CoreGraphics converts through the
/// profile, at the decoded size); with ``ColorProfileHandling/keep`` it keeps its space, which
/// UIKit and AppKit honour when they display it. The profile is reported either way. A JPEG's HDR
/// gain map is found and checked by the shared ``JPEGGainMapReader`` (as on Linux) and only its
/// pixels are decoded here. Kept trivial because it cannot be compiled on Linux, where the project
/// is tested.
struct ImageIODecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { true }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        let limits = context.limits
        if context.format == .jpeg {
            // ImageIO reads every scan of a progressive JPEG and cannot be stopped between them:
            // count them from the markers first, as libjpeg-turbo's monitor does on Linux.
            try JPEGScanCounter.check(data, limits: limits, url: context.url)
        }
        guard let source = CGImageSourceCreateWithData(data as CFData, nil), CGImageSourceGetCount(source) > 0 else {
            throw .decodingFailed(context.url, context.format, reason: "ImageIO found no image in the data")
        }
        let count = context.decodesAllFrames ? CGImageSourceGetCount(source) : 1
        if count > limits.maximumFrameCount {
            throw .limitExceeded(context.url, .frameCount(count: count, limit: limits.maximumFrameCount))
        }
        var frames: [AnimationFrame] = []
        var profile: ColorProfile?
        var totalPixels = 0
        for index in 0..<count {
            let properties = CGImageSourceCopyPropertiesAtIndex(source, index, nil) as? [CFString: Any] ?? [:]
            // No size means ImageIO could not read the header: refuse it rather than guess, so
            // the limits below are never checked against a made-up size.
            guard let width = properties[kCGImagePropertyPixelWidth] as? Int,
                let height = properties[kCGImagePropertyPixelHeight] as? Int, width > 0, height > 0
            else {
                throw .decodingFailed(
                    context.url, context.format, reason: "ImageIO reports no pixel size for frame \(index + 1)")
            }
            try limits.check(width: width, height: height, url: context.url)
            try limits.addFramePixels(width * height, to: &totalPixels, url: context.url)  // checked above: no overflow
            try context.checkCancellation()
            guard CGImageSourceGetStatusAtIndex(source, index) == .statusComplete else {
                throw .decodingFailed(context.url, context.format, reason: "ImageIO reports frame \(index + 1) incomplete")
            }
            let options = Self.decodeOptions(width: width, height: height, context: context)
            guard let decoded = CGImageSourceCreateThumbnailAtIndex(source, index, options) else {
                throw .decodingFailed(context.url, context.format, reason: "ImageIO could not decode frame \(index + 1)")
            }
            if index == 0 { profile = Self.profile(of: decoded) }
            let image = context.colorProfileHandling == .convertToSRGB ? Self.inSRGB(decoded) : decoded
            frames.append(AnimationFrame(image: Self.platformImage(image), duration: Self.duration(properties)))
        }
        var container = ImageContainer(image: frames[0].image, format: context.format, frames: frames.count > 1 ? frames : [])
        container.colorProfile = profile
        container.colorProfileHandling = profile != nil ? context.colorProfileHandling : .convertToSRGB
        if context.format == .jpeg {
            // The map at the base's share of its declared size (ImageIO decodes to the size asked).
            let decoded = container.pixelSize
            JPEGGainMapReader.attach(from: data, to: &container) { mapData, base, map in
                let share = Double(max(decoded.width, decoded.height)) / Double(max(base.width, base.height, 1))
                let longerSide = max(1, Int((Double(max(map.width, map.height)) * min(share, 1)).rounded(.up)))
                return Self.decodeGainMap(mapData, longerSide: longerSide)
            }
        }
        return container
    }

    /// A gain map's JPEG decoded by ImageIO at `longerSide`, unturned (the map has no orientation
    /// of its own; the caller applies the base's).
    private static func decodeGainMap(_ data: Data, longerSide: Int) -> Result<Bitmap, GainMapProblem> {
        guard let source = CGImageSourceCreateWithData(data as CFData, nil), CGImageSourceGetCount(source) > 0,
            CGImageSourceGetStatusAtIndex(source, 0) == .statusComplete
        else { return .failure(GainMapProblem("ImageIO reports the gain map image incomplete")) }
        let options: [CFString: Any] = [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceShouldCacheImmediately: true,
            kCGImageSourceThumbnailMaxPixelSize: longerSide,
        ]
        guard let image = CGImageSourceCreateThumbnailAtIndex(source, 0, options as CFDictionary) else {
            return .failure(GainMapProblem("ImageIO could not decode the gain map image"))
        }
        guard let bitmap = storedValues(of: image) else {
            return .failure(GainMapProblem("CoreGraphics could not read the gain map's values"))
        }
        return .success(bitmap)
    }

    /// `image`'s values as stored, as opaque RGBA (a one-channel map in all three): drawn into a
    /// context of its own colour space, so CoreGraphics converts nothing.
    private static func storedValues(of image: CGImage) -> Bitmap? {
        let (width, height) = (image.width, image.height)
        guard width > 0, height > 0, let space = image.colorSpace, space.model == .monochrome || space.model == .rgb else { return nil }
        let gray = space.model == .monochrome
        let components = gray ? 1 : Bitmap.bytesPerPixel
        var values = [UInt8](repeating: 0, count: width * height * components)
        let drawn = values.withUnsafeMutableBytes { buffer -> Bool in
            guard
                let context = CGContext(
                    data: buffer.baseAddress, width: width, height: height, bitsPerComponent: 8, bytesPerRow: width * components,
                    space: space, bitmapInfo: gray ? CGImageAlphaInfo.none.rawValue : CGImageAlphaInfo.noneSkipLast.rawValue)
            else { return false }
            context.draw(image, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        guard drawn else { return nil }
        var pixels = [UInt8](repeating: 255, count: width * height * Bitmap.bytesPerPixel)
        for index in 0..<(width * height) {
            let pixel = index * Bitmap.bytesPerPixel
            if gray {
                pixels[pixel] = values[index]
                pixels[pixel + 1] = values[index]
                pixels[pixel + 2] = values[index]
            } else {
                pixels[pixel] = values[pixel]
                pixels[pixel + 1] = values[pixel + 1]
                pixels[pixel + 2] = values[pixel + 2]
            }
        }
        return Bitmap(width: width, height: height, alphaMode: .opaque, pixels: pixels)
    }

    /// A preview of a progressive JPEG from its first bytes (they end where a scan ends), through
    /// ImageIO's incremental source, at the size a full decode of the file would have.
    func preview(_ prefix: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        try JPEGScanCounter.check(prefix, limits: context.limits, url: context.url)
        let source = CGImageSourceCreateIncremental(nil)
        CGImageSourceUpdateData(source, prefix as CFData, false)
        let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any] ?? [:]
        guard let width = properties[kCGImagePropertyPixelWidth] as? Int,
            let height = properties[kCGImagePropertyPixelHeight] as? Int, width > 0, height > 0
        else { throw .decodingFailed(context.url, .jpeg, reason: "ImageIO reports no pixel size for the preview") }
        try context.limits.check(width: width, height: height, url: context.url)
        try context.checkCancellation()
        let options = Self.decodeOptions(width: width, height: height, context: context)
        guard let decoded = CGImageSourceCreateThumbnailAtIndex(source, 0, options) else {
            throw .decodingFailed(context.url, .jpeg, reason: "ImageIO could not decode a preview")
        }
        let profile = Self.profile(of: decoded)
        let image = context.colorProfileHandling == .convertToSRGB ? Self.inSRGB(decoded) : decoded
        var container = ImageContainer(image: Self.platformImage(image), format: .jpeg)
        container.colorProfile = profile
        container.colorProfileHandling = profile != nil ? context.colorProfileHandling : .convertToSRGB
        return container
    }

    /// ImageIO's options for decoding an image of `width` x `height` (oriented, decoded at once) at
    /// most `context.maximumPixelSize` on its longer side and never larger than the image: the
    /// thumbnail is the decoded image.
    private static func decodeOptions(width: Int, height: Int, context: DecodingContext) -> CFDictionary {
        let longerSide = max(width, height)
        let options: [CFString: Any] = [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceCreateThumbnailWithTransform: true,
            kCGImageSourceShouldCacheImmediately: true,
            kCGImageSourceThumbnailMaxPixelSize: max(min(context.maximumPixelSize ?? longerSide, longerSide), 1),
        ]
        return options as CFDictionary
    }

    /// The image's colour profile, unless it is sRGB (or has none).
    private static func profile(of image: CGImage) -> ColorProfile? {
        guard let space = image.colorSpace, space.name != CGColorSpace.sRGB, let data = space.copyICCData() as Data? else {
            return nil
        }
        return try? ColorProfile(iccData: data)
    }

    /// `image` drawn into 8-bit sRGB when it is in another colour space; CoreGraphics converts the
    /// colours on the way (and premultiplies, as the pipeline's bitmaps on Apple platforms are).
    private static func inSRGB(_ image: CGImage) -> CGImage {
        guard let space = image.colorSpace, space.name != CGColorSpace.sRGB, let sRGB = CGColorSpace(name: CGColorSpace.sRGB),
            let context = CGContext(
                data: nil, width: image.width, height: image.height, bitsPerComponent: 8, bytesPerRow: 0, space: sRGB,
                bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)
        else { return image }
        context.draw(image, in: CGRect(x: 0, y: 0, width: image.width, height: image.height))
        return context.makeImage() ?? image
    }

    private static func platformImage(_ image: CGImage) -> PlatformImage {
        #if canImport(UIKit)
        UIImage(cgImage: image)
        #else
        NSImage(cgImage: image, size: .zero)
        #endif
    }

    /// The frame's delay (GIF, WebP, APNG or HEIF sequence); 10 ms or less plays as 100 ms, as in
    /// browsers and the Linux decoders.
    private static func duration(_ properties: [CFString: Any]) -> Duration {
        let delays: [(dictionary: CFString, key: CFString)] = [
            (kCGImagePropertyGIFDictionary, kCGImagePropertyGIFUnclampedDelayTime),
            (kCGImagePropertyWebPDictionary, kCGImagePropertyWebPUnclampedDelayTime),
            (kCGImagePropertyPNGDictionary, kCGImagePropertyAPNGUnclampedDelayTime),
            (kCGImagePropertyHEICSDictionary, kCGImagePropertyHEICSUnclampedDelayTime),
        ]
        let seconds =
            delays.lazy.compactMap { delay in
                (properties[delay.dictionary] as? [CFString: Any])?[delay.key] as? Double
            }.first ?? 0
        guard seconds.isFinite else { return .milliseconds(100) }
        if seconds >= 3_600 { return .seconds(3_600) }  // an hour is a still; and Int() cannot trap
        return seconds <= 0.01 ? .milliseconds(100) : .milliseconds(Int((seconds * 1000).rounded()))
    }
}
#endif
