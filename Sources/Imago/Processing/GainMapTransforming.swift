/// A processor that says what it does to an HDR gain map (``ImageContainer/gainMap``): the same
/// geometry at the map's own scale (resize, thumbnail, crop, rotate), the map unchanged (blur,
/// sharpen, rounded corners: same pixels in the same places), or `nil` to drop it.
///
/// `ImageContainer.mapBitmaps` asks it after the image is processed. A processor that does not
/// conform drops the map: a map that no longer lines up with its base would brighten the wrong
/// pixels, and one whose base changed tones (a colour adjustment, a watermark) would be wrong too.
package protocol GainMapTransforming {
    /// The map for an image this processor turned from `source` into `result` (their sizes); `nil`
    /// to drop it.
    func transformedGainMap(_ map: Bitmap, source: PixelSize, result: PixelSize) throws(ImagePipeline.Error) -> Bitmap?
}

/// The geometry of a gain map, which covers its base image whatever its own size.
enum GainMapGeometry {
    /// `map` resampled as its base was: the `region` of a base of `base` pixels shown at `size`
    /// becomes the same region of the map at the same proportion of its size (at least 1 pixel).
    static func resample(_ map: Bitmap, base: PixelSize, region: Resampler.Region, to size: PixelSize) -> Bitmap? {
        guard base.width > 0, base.height > 0, map.width > 0, map.height > 0 else { return nil }
        let scaleX = Double(map.width) / Double(base.width)
        let scaleY = Double(map.height) / Double(base.height)
        let mapRegion = Resampler.Region(
            x: region.x * scaleX, y: region.y * scaleY, width: region.width * scaleX, height: region.height * scaleY)
        let output = PixelSize(width: side(Double(size.width) * scaleX), height: side(Double(size.height) * scaleY))
        return Resampler.resample(map, region: mapRegion, to: output)
    }

    /// A scaled side in whole pixels, at least 1 (a map is never larger than its base, so never
    /// near `Int.max`).
    private static func side(_ length: Double) -> Int {
        guard length.isFinite, length < 1e9 else { return 1 }
        return max(1, Int(length.rounded()))
    }
}

extension ImageProcessors.Rotate: GainMapTransforming {
    /// The map turned the same way.
    package func transformedGainMap(_ map: Bitmap, source: PixelSize, result: PixelSize) throws(ImagePipeline.Error) -> Bitmap? {
        try process(map)
    }
}

extension ImageProcessors.GaussianBlur: GainMapTransforming {
    /// The map as it is: blurring changes no tone on average and moves no pixel.
    package func transformedGainMap(_ map: Bitmap, source: PixelSize, result: PixelSize) -> Bitmap? { map }
}

extension ImageProcessors.Sharpen: GainMapTransforming {
    /// The map as it is: sharpening moves no pixel.
    package func transformedGainMap(_ map: Bitmap, source: PixelSize, result: PixelSize) -> Bitmap? { map }
}

extension ImageProcessors.RoundedCorners: GainMapTransforming {
    /// The map as it is: the corners only become transparent.
    package func transformedGainMap(_ map: Bitmap, source: PixelSize, result: PixelSize) -> Bitmap? { map }
}

extension ImageContainer {
    /// The gain map for this image's pixels resampled whole from `source` to `result` (the tier
    /// of decoded originals reduces entries so): the map shrunk by the same share, never below
    /// 1 pixel; `nil` without a map.
    package func gainMap(resampledFrom source: PixelSize, to result: PixelSize) -> GainMap? {
        guard let gainMap else { return nil }
        let whole = Resampler.Region(x: 0, y: 0, width: Double(source.width), height: Double(source.height))
        return GainMapGeometry.resample(gainMap.bitmap, base: source, region: whole, to: result)
            .map { GainMap(bitmap: $0, metadata: gainMap.metadata) }
    }
}
