#if os(Linux)
import Foundation
import Imago

/// What a proxy request asks for: the crop, the resize and where it cuts, the rotation, the
/// filters, the padding, the output format and quality, the background, parsed from the options
/// segments of a processing path (imgproxy's grammar, the options people use).
///
/// A width or height of 0 means "follow the other side's aspect ratio"; both 0 means no resize.
/// The geometry types (``Gravity``, ``Crop``, ``Padding``, ``Extend``) live in
/// `ProcessingOptions+Geometry.swift`.
public struct ProcessingOptions: Sendable, Hashable {
    /// How the image is fitted to the width and height.
    public enum ResizingType: String, Sendable, Hashable, CaseIterable {
        /// Keep the aspect ratio; the whole image fits inside width x height.
        case fit
        /// Keep the aspect ratio; cover width x height, then cut the overflow where ``gravity`` says.
        case fill
        /// As ``fill``, but never enlarging: a source smaller than width x height is cut to the
        /// box's aspect ratio at its own scale (imgproxy's `fill-down`).
        case fillDown = "fill-down"
        /// Ignore the aspect ratio: exactly width x height.
        case force
        /// ``fill`` when the source and the box are both landscape (or both portrait), else
        /// ``fit`` (imgproxy's `auto`).
        case auto
    }

    /// The encoding of the response.
    public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
        case jpeg
        case png
        case webp
        case avif
        /// GIF: a fixed palette of 252 colours, dithered; alpha below half is transparent
        /// (Imago's `GIFEncoder`). Animated when the source is and more than one frame is allowed
        /// (``maximumAnimationFrames``), as is ``webp``. Never chosen by ``auto``.
        case gif
        /// JPEG XL (libjxl): lossy at the quality asked, lossless at 100.
        case jxl
        /// JPEG XL when the client's `Accept` names `image/jxl` and the proxy negotiates it
        /// (`IMGPROXY_AUTO_JXL`), else AVIF when it names `image/avif` (and this build writes
        /// it), else WebP when it names `image/webp`, else JPEG (opaque) or PNG (alpha).
        case auto
    }

    /// Default: ``ResizingType/fit``.
    public var resizingType: ResizingType = .fit
    /// Target width in CSS pixels (multiplied by ``devicePixelRatio``); 0: from the height. Default: 0.
    public var width: Int = 0
    /// Target height in CSS pixels (multiplied by ``devicePixelRatio``); 0: from the width. Default: 0.
    public var height: Int = 0
    /// Whether an image smaller than the target is enlarged. Default: `false`.
    public var enlarge: Bool = false
    /// Device-pixel ratio, 1...8 in steps the URL gives; multiplies the size, the padding and the
    /// absolute gravity offsets of the result crop and the extension. Default: 1.
    public var devicePixelRatio: Double = 1
    /// Quality of lossy formats, 0.01...1 (the URL's 1...100, in hundredths: 0 to 1, as for every
    /// quality in Imago); `nil`: the server's default. Default: `nil`.
    public var quality: Double?
    /// Output format. Default: ``OutputFormat/auto``.
    public var format: OutputFormat = .auto
    /// Background for formats without alpha (JPEG): transparent pixels are composited onto it;
    /// also what padding and extension fill with. Default: `nil` (white in JPEG; padding and
    /// extension stay transparent where the format keeps alpha).
    public var background: RGBA?
    /// Whether the output is converted to sRGB and written without a profile (`true`), or keeps
    /// the source's pixels and profile (`false`); `nil`: the server's
    /// ``ImageProxyConfiguration/stripsColorProfile``. imgproxy's `strip_color_profile`. Default: `nil`.
    public var stripColorProfile: Bool?
    /// Where a crop cuts: for `fill` (the overflow) and for ``crop`` without a gravity of its own.
    /// imgproxy's `gravity`. Default: ``Gravity/center`` without offsets.
    public var gravity: Gravity = .center
    /// A part of the source to keep before anything else (after ``rotation``). Default: `nil`.
    public var crop: Crop?
    /// Space added around the result, in CSS pixels (times the ratio), filled with ``background``.
    /// Default: `nil`.
    public var padding: Padding?
    /// Whether a result smaller than width x height is placed on a canvas of that size (and where).
    /// Default: `nil` (never extended).
    public var extend: Extend?
    /// Clockwise rotation applied before the crop and the resize: 0, 90, 180 or 270. Default: 0.
    public var rotation: Int = 0
    /// Gaussian blur of the result, sigma in pixels (0.01...100); `nil`: none. Default: `nil`.
    public var blurSigma: Double?
    /// Sharpening of the result (an unsharp mask), sigma in pixels (0.01...100); `nil`: none.
    /// Default: `nil`.
    public var sharpenSigma: Double?
    /// imgproxy's `strip_metadata`: whether the source's EXIF, XMP and IPTC are left out of the
    /// output (all but its authorship when ``keepCopyright`` says so); `false` writes them all into
    /// JPEG, PNG and WebP output (EXIF's orientation as 1, the pixels being upright; IPTC in JPEG
    /// only). `nil`: ``ImageProxyConfiguration/stripsMetadata``. Default: `nil`.
    public var stripMetadata: Bool?
    /// Unix time after which the URL answers 404 `expired`; `nil` (or a time ≤ 0): never.
    /// Default: `nil`.
    public var expires: Int?
    /// Part of the cache key only: changing it makes a new response without changing the image.
    /// Default: `nil`.
    public var cacheBuster: String?
    /// The image answered, processed with these options, when the source cannot be fetched or
    /// decoded (imgproxy Pro's `fallback_image_url`, `fiu`: a base64url-encoded URL), under the
    /// source policy and the server's fallback status and TTL. Default: `nil`, the server's
    /// fallback image, if any.
    public var fallbackImageURL: URL?
    /// The most pixels (width x height) a source may have for this request, in pixels (the URL
    /// gives megapixels); never above the server's own limit. A security option: refused (403)
    /// unless the server allows them. Default: `nil` (the server's limit).
    public var maximumSourcePixels: Int?
    /// The most bytes a source may have for this request; never above the server's own limit. A
    /// security option: refused (403) unless the server allows them. Default: `nil`.
    public var maximumSourceBytes: Int?
    /// The most frames of an animated source processed: its first N (imgproxy's
    /// `max_animation_frames`; 1 makes an animation its first frame). A security option.
    /// Default: `nil` (the server's ``ImageProxyConfiguration/maximumAnimationFrames``).
    public var maximumAnimationFrames: Int?
    /// The most pixels of one frame of an animation processed with more than one frame (imgproxy's
    /// `max_animation_frame_resolution`; 0: none, the frames together count against the source
    /// resolution limit). A security option. Default: `nil` (the server's
    /// ``ImageProxyConfiguration/maximumAnimationFramePixels``).
    public var maximumAnimationFramePixels: Int?
    /// The least width of the result in CSS pixels, even past what the resizing type gives (the
    /// aspect ratio kept). imgproxy's `min-width`. Default: 0 (none).
    public var minimumWidth: Int = 0
    /// The least height, as ``minimumWidth``. imgproxy's `min-height`. Default: 0 (none).
    public var minimumHeight: Int = 0
    /// Multiplies the width and the scale across, after the resizing type (and, unlike the ratio,
    /// not the padding or offsets). imgproxy's `zoom`. Default: 1.
    public var zoomWidth: Double = 1
    /// Multiplies the height and the scale down, as ``zoomWidth``. Default: 1.
    public var zoomHeight: Double = 1
    /// Whether a result of another aspect ratio than width x height is placed on a canvas of that
    /// aspect ratio (the least such canvas that holds it), and where. imgproxy's
    /// `extend_aspect_ratio`. Default: `nil` (never).
    public var extendAspectRatio: Extend?
    /// The longest side of the whole result (padding and extension included) in pixels: the scale,
    /// the ratio and the padding are reduced together to stay within it; never above the server's
    /// own limit. imgproxy's `max_result_dimension`. Default: `nil` (the server's limit).
    public var maximumResultDimension: Int?
    /// Whether the result is mirrored left to right (after the rotation). imgproxy's `flip`'s first
    /// argument. Default: `false`.
    public var flipHorizontally = false
    /// Whether the result is mirrored top to bottom (after the rotation). imgproxy's `flip`'s second
    /// argument. Default: `false`.
    public var flipVertically = false
    /// imgproxy's `auto_rotate`: whether the source's EXIF orientation is applied. Only `true` (or
    /// `nil`) is accepted: the pipeline always turns sources upright when it decodes them, so `ar:0`
    /// is a 400 rather than a silently different image. Default: `nil` (applied).
    public var autoRotate: Bool?
    /// The side of the blocks the result is pixelated into, in pixels (2 or more); `nil`: none.
    /// imgproxy's `pixelate`. Default: `nil`.
    public var pixelateSize: Int?
    /// Quality per output format, used when that format is the output and no ``quality`` is
    /// given (imgproxy's precedence: `q`, then `fq`, then the server's default). imgproxy's
    /// `format_quality`. Default: none.
    public var formatQualities: [ImageFormat: Double] = [:]
    /// The most bytes the encoded result should have: a lossy output (JPEG, WebP, AVIF) is encoded
    /// again at lower qualities until it fits or a try was at quality 10 or lower, as imgproxy
    /// does (that try is answered, even if larger); PNG has no quality, so it is written once,
    /// whatever its size. imgproxy's `max_bytes`. Default: `nil`.
    public var maximumBytes: Int?
    /// Source formats whose bytes are answered as they came, unprocessed (no resize, no
    /// re-encoding; the other options are ignored for them), when the path asks no output format
    /// or the source's own (imgproxy's rule). imgproxy's `skip_processing`; when empty, the
    /// server's ``ImageProxyConfiguration/skipProcessingFormats`` apply. Default: none.
    public var skipProcessingFormats: [ImageFormat] = []
    /// Whether the source is answered as it came, whatever its format (imgproxy's `raw`: no
    /// processing; the source policy, the signature, the expiry and the source limits still apply).
    /// Default: `false`.
    public var raw = false
    /// The name the `Content-Disposition` header gives the result (without extension: the
    /// output's is added); `nil`: the source URL's last path component. imgproxy's `filename`.
    /// Default: `nil`.
    public var filename: String?
    /// Whether `Content-Disposition` says `attachment` (download) rather than `inline`. imgproxy's
    /// `return_attachment`. Default: `false`.
    public var returnAttachment = false
    /// imgproxy's `keep_copyright`: whether stripping metadata (``stripMetadata``) keeps the
    /// source's authorship: EXIF `Copyright` and `Artist`, IPTC 2:80, 2:110 and 2:116, XMP's `dc`
    /// rights, creator, contributor and publisher and its `xmpRights` and `cc` namespaces. `nil`:
    /// ``ImageProxyConfiguration/keepsCopyright``. Default: `nil`.
    public var keepCopyright: Bool?
    /// imgproxy's `preserve_hdr`. HDR is not kept yet (issue 41): every output is 8 bits per
    /// channel, whatever this says; accepted so URLs written for imgproxy parse. Default: `nil`.
    public var preserveHDR: Bool?
    /// Whether an HDR gain map of the source (``ImageContainer/gainMap``: Ultra HDR and ISO
    /// 21496-1 JPEGs) is kept: given the same geometry and written into a JPEG output, and `f:auto`
    /// answers JPEG for such a source rather than a format that would lose it (Imago's `gm`,
    /// `gain_map`; not an imgproxy option). `gm:0` drops the map, and `auto` then negotiates as for
    /// any source: the smaller file over the HDR rendition. Default: `true`.
    public var keepsGainMap = true
    /// imgproxy's `enforce_thumbnail`: process the largest thumbnail embedded in a HEIF or AVIF
    /// source rather than its primary image, when it has one (a source without one, or of another
    /// format, is processed as usual); the geometry then applies to the thumbnail's size. `nil`
    /// follows `ImageProxyConfiguration.enforcesThumbnail` (`IMGPROXY_ENFORCE_THUMBNAIL`).
    /// Default: `nil`.
    public var enforceThumbnail: Bool?
    /// The border cut away before any other geometry (imgproxy's `trim`, `t:THRESHOLD:COLOR:EQUAL_HOR:EQUAL_VER`):
    /// the source is then decoded whole, as imgproxy does, and sized as trimmed. Not applied to
    /// an animation (imgproxy neither). Default: `nil`.
    public var trim: ImageProcessors.Trim?
    /// An image laid over the result (imgproxy's `watermark`, `wm`): the server's
    /// (``ImageProxyConfiguration/watermark``) or the path's ``watermarkURL``; without either the
    /// option changes nothing, as in imgproxy. Default: `nil`.
    public var watermark: Watermark?
    /// The watermark image for this request (imgproxy Pro's `watermark_url`, `wmu`: a
    /// base64url-encoded URL), fetched under the source policy like any source. Default: `nil`,
    /// the server's watermark.
    public var watermarkURL: URL?
    /// The presets the path named, in the order they were applied (the server's `default` preset
    /// first when it has one). Default: none.
    public var presets: [String] = []

    public init() {}

    /// The output size in pixels: width and height times the ratio, rounded, 0 kept as 0; a side
    /// that was given stays at least 1 (a ratio that rounds it to 0 must not turn it into "follow
    /// the aspect ratio", which has no bound of its own).
    public var pixelWidth: Int { Self.scaled(width, by: devicePixelRatio) }
    /// See ``pixelWidth``.
    public var pixelHeight: Int { Self.scaled(height, by: devicePixelRatio) }

    /// The padding in pixels (each side times the ratio, rounded); zero when there is none.
    public var pixelPadding: Padding {
        guard let padding else { return Padding(top: 0, right: 0, bottom: 0, left: 0) }
        return Padding(
            top: Self.scaled(padding.top, by: devicePixelRatio), right: Self.scaled(padding.right, by: devicePixelRatio),
            bottom: Self.scaled(padding.bottom, by: devicePixelRatio), left: Self.scaled(padding.left, by: devicePixelRatio))
    }

    static func scaled(_ length: Int, by ratio: Double) -> Int {
        guard length > 0 else { return 0 }
        // Both are bounded by the parser (length ≤ 100,000, ratio ≤ 8), so this cannot overflow.
        return max(1, Int((Double(length) * ratio).rounded()))
    }

    /// A canonical text of every option that changes the output (or, like the cache buster and
    /// the source limits, which response a request may get), for cache keys and ETags: equal
    /// options, equal text; different outputs, different texts.
    public var canonical: String {
        var parts = ["rs:\(resizingType.rawValue):\(width):\(height):\(enlarge ? 1 : 0)", "dpr:\(devicePixelRatio)"]
        if let quality { parts.append("q:\(Int((quality * 100).rounded()))") }
        parts.append("f:\(format.rawValue)")
        if let background {
            parts.append("bg:\(ProcessingOptionsParser.hex(background))")
        }
        if let stripColorProfile { parts.append("scp:\(stripColorProfile ? 1 : 0)") }
        if gravity != .center { parts.append("g:\(gravity.canonical)") }
        if let crop { parts.append("c:\(crop.width):\(crop.height):\(crop.gravity?.canonical ?? "-")") }
        if let padding { parts.append("pd:\(padding.top):\(padding.right):\(padding.bottom):\(padding.left)") }
        if let extend { parts.append("ex:\(extend.gravity.canonical)") }
        if rotation != 0 { parts.append("rot:\(rotation)") }
        if minimumWidth != 0 || minimumHeight != 0 { parts.append("min:\(minimumWidth):\(minimumHeight)") }
        if zoomWidth != 1 || zoomHeight != 1 { parts.append("z:\(zoomWidth):\(zoomHeight)") }
        if let extendAspectRatio { parts.append("exar:\(extendAspectRatio.gravity.canonical)") }
        if let maximumResultDimension { parts.append("mrd:\(maximumResultDimension)") }
        if flipHorizontally || flipVertically { parts.append("fl:\(flipHorizontally ? 1 : 0):\(flipVertically ? 1 : 0)") }
        if let pixelateSize { parts.append("pix:\(pixelateSize)") }
        if let trim { parts.append("t:" + trim.identifier) }
        if let blurSigma { parts.append("bl:\(blurSigma)") }
        if let sharpenSigma { parts.append("sh:\(sharpenSigma)") }
        if !formatQualities.isEmpty {
            let pairs = formatQualities.sorted { $0.key.rawValue < $1.key.rawValue }
            parts.append("fq:" + pairs.map { "\($0.key.rawValue):\(Int(($0.value * 100).rounded()))" }.joined(separator: ":"))
        }
        if let maximumBytes { parts.append("mb:\(maximumBytes)") }
        if !skipProcessingFormats.isEmpty { parts.append("skp:" + skipProcessingFormats.map(\.rawValue).joined(separator: ":")) }
        if raw { parts.append("raw:1") }
        if returnAttachment { parts.append("att:1") }
        if !keepsGainMap { parts.append("gm:0") }
        // Length-prefixed, as the cache buster: free text.
        if let filename { parts.append("fn:\(filename.utf8.count):\(filename)") }
        if let enforceThumbnail { parts.append("eth:\(enforceThumbnail ? 1 : 0)") }
        if let maximumSourcePixels { parts.append("msr:\(maximumSourcePixels)") }
        if let maximumSourceBytes { parts.append("msfs:\(maximumSourceBytes)") }
        if let maximumAnimationFrames { parts.append("maf:\(maximumAnimationFrames)") }
        if let maximumAnimationFramePixels { parts.append("mafr:\(maximumAnimationFramePixels)") }
        if let watermark { parts.append("wm:\(watermark.canonical)") }
        if let watermarkURL { parts.append("wmu:\(watermarkURL.absoluteString.utf8.count):\(watermarkURL.absoluteString)") }
        // Length-prefixed: a cache buster is free text and must not read as other options.
        if let cacheBuster { parts.append("cb:\(cacheBuster.utf8.count):\(cacheBuster)") }
        if let fallbackImageURL { parts.append("fiu:\(fallbackImageURL.absoluteString.utf8.count):\(fallbackImageURL.absoluteString)") }
        return parts.joined(separator: "/")
    }
}
#endif
