import Foundation

/// A processor that says what it does to an HDR gain map (``ImageContainer/gainMap``): the same
/// geometry at the map's own scale (resize, thumbnail, crop, rotate, padding), the map unchanged
/// (blur, sharpen, rounded corners: same pixels in the same places), or `nil` to drop it.
///
/// `ImageContainer.mapBitmaps` asks it after the image is processed. A processor that does not
/// conform drops the map: a map that no longer lines up with its base would brighten the wrong
/// pixels, and one whose base changed tones (a colour adjustment) would be wrong too.
package protocol GainMapTransforming {
    /// The map for an image this processor turned from `source` into `result` (their sizes); `nil`
    /// to drop it.
    func transformedGainMap(_ map: GainMap, source: PixelSize, result: PixelSize) throws(ImagePipeline.Error) -> GainMap?
}

extension GainMap {
    /// The same map with other pixels (`nil` stays `nil`).
    func replacingBitmap(_ bitmap: Bitmap?) -> GainMap? {
        bitmap.map { GainMap(bitmap: $0, metadata: metadata) }
    }

    /// The map value that stands for no gain (log2 gain 0) in each channel, as opaque RGBA: what
    /// padding around the base adds to the map, so the new border shows as in SDR. A channel
    /// whose range excludes 0 gets its nearest end.
    package var neutralValue: RGBA {
        func level(_ channel: GainMap.Metadata.Channel?) -> UInt8 {
            guard let channel, channel.gainMapMax > channel.gainMapMin else { return 0 }
            let recovery = min(max(-channel.gainMapMin / (channel.gainMapMax - channel.gainMapMin), 0), 1)
            return UInt8((pow(recovery, channel.gamma) * 255).rounded())
        }
        let channels = metadata.channels
        let red = level(channels.first)
        return channels.count == 3 ? RGBA(red, level(channels[1]), level(channels[2])) : RGBA(red, red, red)
    }

    /// `mark`'s shape in the value that stands for no gain: its alpha, every colour
    /// ``neutralValue``. Laid over the map where `mark` is laid over the base, it makes what the
    /// mark covers show as in SDR, in proportion to its coverage: a watermark is not brightened
    /// by the gain of the photograph under it, and the rest keeps its light.
    package func neutralCover(of mark: Bitmap) -> Bitmap {
        let neutral = neutralValue
        var pixels = mark.pixels
        var index = 0
        while index + 3 < pixels.count {
            pixels[index] = neutral.r
            pixels[index + 1] = neutral.g
            pixels[index + 2] = neutral.b
            if mark.alphaMode == .opaque { pixels[index + 3] = 255 }
            index += Bitmap.bytesPerPixel
        }
        return Bitmap(width: mark.width, height: mark.height, alphaMode: mark.alphaMode == .opaque ? .opaque : .straight, pixels: pixels)
    }
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
    package func transformedGainMap(_ map: GainMap, source: PixelSize, result: PixelSize) throws(ImagePipeline.Error) -> GainMap? {
        map.replacingBitmap(try process(map.bitmap))
    }
}

extension ImageProcessors.Padding: GainMapTransforming {
    /// The map padded by the same share of its size, with the value that stands for no gain, so
    /// the border stays as flat as in SDR.
    package func transformedGainMap(_ map: GainMap, source: PixelSize, result: PixelSize) throws(ImagePipeline.Error) -> GainMap? {
        guard source.width > 0, source.height > 0 else { return nil }
        let scaleX = Double(map.bitmap.width) / Double(source.width)
        let scaleY = Double(map.bitmap.height) / Double(source.height)
        func scaled(_ side: Int, _ scale: Double) -> Int { Int(min(Double(side) * scale, 1e9).rounded()) }
        let padding = ImageProcessors.Padding(
            top: scaled(top, scaleY), right: scaled(right, scaleX), bottom: scaled(bottom, scaleY), left: scaled(left, scaleX),
            color: map.neutralValue, maximumOutputPixelCount: maximumOutputPixelCount)
        return map.replacingBitmap(try padding.process(map.bitmap))
    }
}

extension ImageProcessors.GaussianBlur: GainMapTransforming {
    /// The map as it is: blurring changes no tone on average and moves no pixel.
    package func transformedGainMap(_ map: GainMap, source: PixelSize, result: PixelSize) -> GainMap? { map }
}

extension ImageProcessors.Sharpen: GainMapTransforming {
    /// The map as it is: sharpening moves no pixel.
    package func transformedGainMap(_ map: GainMap, source: PixelSize, result: PixelSize) -> GainMap? { map }
}

extension ImageProcessors.Watermark: GainMapTransforming {
    /// The map with the watermark's shape laid over it in the value of no gain
    /// (``GainMap/neutralCover(of:)``), at the map's scale and with the same opacity and
    /// placement: the mark shows as in SDR on an HDR display, the rest of the photograph as before.
    package func transformedGainMap(_ map: GainMap, source: PixelSize, result: PixelSize) throws(ImagePipeline.Error) -> GainMap? {
        guard source.width > 0, source.height > 0 else { return nil }
        let scaleX = Double(map.bitmap.width) / Double(source.width)
        let scaleY = Double(map.bitmap.height) / Double(source.height)
        // Placements are any Int a caller gave: bounded before the conversion back.
        func scaled(_ value: Int, _ scale: Double) -> Int { Int(min(max(Double(value) * scale, -1e9), 1e9).rounded()) }
        let size = PixelSize(width: max(1, scaled(image.width, scaleX)), height: max(1, scaled(image.height, scaleY)))
        let mark = size == PixelSize(width: image.width, height: image.height) ? image : Resampler.resample(image, to: size)
        let mapPlacement: Placement =
            switch placement {
            case .at(let x, let y): .at(x: scaled(x, scaleX), y: scaled(y, scaleY))
            case .tiled(let x, let y): .tiled(spacingX: scaled(x, scaleX), spacingY: scaled(y, scaleY))
            }
        let cover = ImageProcessors.Watermark(
            image: map.neutralCover(of: mark), opacity: opacity, placement: mapPlacement, imageIdentifier: imageIdentifier)
        return map.replacingBitmap(try cover.process(map.bitmap))
    }
}

extension ImageProcessors.RoundedCorners: GainMapTransforming {
    /// The map as it is: the corners only become transparent.
    package func transformedGainMap(_ map: GainMap, source: PixelSize, result: PixelSize) -> GainMap? { map }
}

extension ImageContainer {
    /// The gain map for this image's pixels resampled whole from `source` to `result` (the tier
    /// of decoded originals reduces entries so): the map shrunk by the same share, never below
    /// 1 pixel; `nil` without a map.
    package func gainMap(resampledFrom source: PixelSize, to result: PixelSize) -> GainMap? {
        guard let gainMap else { return nil }
        let whole = Resampler.Region(x: 0, y: 0, width: Double(source.width), height: Double(source.height))
        return gainMap.replacingBitmap(GainMapGeometry.resample(gainMap.bitmap, base: source, region: whole, to: result))
    }
}
