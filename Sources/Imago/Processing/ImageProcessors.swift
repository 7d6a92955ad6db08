/// The processors Imago ships, in one namespace: `ImageProcessors.Resize`, `.Crop`,
/// `.GaussianBlur`, `.Padding`, `.Rotate`, `.RoundedCorners`, `.Sharpen`, `.SmartCrop`, `.Trim` and
/// `.Watermark`.
///
/// Each is a value listed in ``ImageRequest/processors``, applied in order after the decode; its
/// identifier is part of the cache key. A thumbnail is not a processor: it is
/// ``ImageRequest/maximumPixelSize``, which also lets the decoder shrink while it reads. A processor
/// of your own conforms to ``BitmapProcessing`` (per-pixel work) or ``ImageProcessing``.
///
/// ```swift
/// let request = ImageRequest(
///     url: URL(string: "https://example.com/avatar.jpg")!,
///     processors: [ImageProcessors.Crop.centerSquare, ImageProcessors.RoundedCorners(radius: 16)])
/// ```
public enum ImageProcessors {}
