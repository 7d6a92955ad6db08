#if os(Linux)
import Foundation
import Imago

extension ImageProxy {
    /// Makes the image through the pipeline (the source from its tier of decoded originals, disk
    /// cache or network, decoded at the reduction the request allows, rendered), then encodes it
    /// as `format` (`nil`: one of the preferred formats, ``preferredFormat(source:animated:transparent:)``).
    func produce(_ parsed: ProcessingPath, format: ImageFormat?) async throws(ProxyError) -> EncodedImage {
        let options = parsed.options
        if options.raw || !skippedFormats(options).isEmpty, let unprocessed = try await unprocessed(parsed) {
            return unprocessed
        }
        let watermark = try await resolvedWatermark(for: options)
        let response: ImageResponse
        do {
            response = try await pipeline.image(for: request(for: parsed, format: format, watermark: watermark))
        } catch {
            throw ProxyError(error)
        }
        // A memory answer is the pipeline's tier of decoded originals: no download, no decode.
        metrics.recordHit(tier: response.source == .memory ? "decoded" : response.source.rawValue)
        if response.source == .network, let bytes = response.encodedByteCount { metrics.recordSourceBytes(bytes) }
        do throws(ImagePipeline.Error) {
            var bitmap = try response.container.bitmap()
            var format =
                format
                ?? preferredFormat(
                    source: response.container.format, animated: response.container.isAnimated,
                    transparent: bitmap.alphaMode != .opaque)
            // A gain map is kept only by JPEG: a format the path did not name gives way to it.
            let gainMap = options.keepsGainMap ? response.container.gainMap : nil
            if gainMap != nil, options.format == .auto, format != .jpeg, bitmap.alphaMode == .opaque {
                format = .jpeg
            }
            if response.container.isAnimated, let animated = Self.animatedFormat(format) {
                return try encodedAnimation(response, parsed: parsed, as: animated)
            }
            if format == .jpeg, let background = options.background, bitmap.alphaMode != .opaque {
                // In the pixels' own profile when they kept it (`scp:0`), as the renderer's padding.
                let profile = response.container.pixelColorProfile
                bitmap = Self.flatten(bitmap, onto: profile.flatMap { $0.converting(fromSRGB: background) } ?? background)
            }
            // imgproxy's precedence: the URL's `q`, then its `fq` for this format, then the
            // server's quality for this format (IMGPROXY_FORMAT_QUALITY), then its default.
            let quality =
                options.quality ?? options.formatQualities[format] ?? configuration.formatQualities[format]
                ?? configuration.defaultQuality
            // Pixels that kept the source's profile (`scp:0`) carry it; sRGB goes out without one.
            let data = try Self.encode(
                bitmap, as: format, quality: quality, profile: response.container.pixelColorProfile,
                gainMap: format == .jpeg ? gainMap : nil, metadata: metadata(of: response.container, for: options),
                maximumBytes: options.maximumBytes, settings: configuration.encoderSettings)
            var image = EncodedImage(
                data: data, contentType: Self.contentType(format), etag: Self.etag(data), width: bitmap.width,
                height: bitmap.height, expiresAt: response.expiresAt, isStorable: response.isStorable,
                contentDisposition: ContentDisposition(options: options, source: parsed.source, format: format).headerValue)
            (image.sourceWidth, image.sourceHeight) = (response.container.sourcePixelSize.width, response.container.sourcePixelSize.height)
            image.lastModified = response.lastModified
            return image
        } catch {
            throw ProxyError(error)
        }
    }

    /// The source formats answered unprocessed for `options`: its `skp` list, else the server's
    /// (`IMGPROXY_SKIP_PROCESSING_FORMATS`), as imgproxy lets the path's list replace the server's.
    func skippedFormats(_ options: ProcessingOptions) -> [ImageFormat] {
        options.skipProcessingFormats.isEmpty ? configuration.skipProcessingFormats : options.skipProcessingFormats
    }

    /// Whether a source of `format` is answered unprocessed for `options`: `raw`, or a skipped
    /// format when the path asks no output format (`f:auto`, what the client takes) or the
    /// source's own, imgproxy's rule (a path that asks another format gets it).
    func skipsProcessing(of format: ImageFormat?, for options: ProcessingOptions) -> Bool {
        if options.raw { return true }
        guard let format, skippedFormats(options).contains(format) else { return false }
        switch options.format {
        case .auto: return true
        case .jpeg: return format == .jpeg
        case .png: return format == .png
        case .webp: return format == .webp
        case .avif: return format == .avif
        case .jxl: return format == .jxl
        case .gif: return format == .gif
        }
    }

    /// The source's bytes as they came, when `raw` asks for them or `skip_processing` names their
    /// format (``skipsProcessing(of:for:)``); `nil` when the source is to be processed. imgproxy
    /// answers these without decoding:
    /// so does this (the bytes are not checked beyond what loading checks), the `Content-Type`
    /// is what the bytes' signature says (`application/octet-stream` when none is known).
    func unprocessed(_ parsed: ProcessingPath) async throws(ProxyError) -> EncodedImage? {
        let options = parsed.options
        let original: ImagePipeline.OriginalData
        do {
            original = try await pipeline.data(for: request(for: parsed))
        } catch {
            throw ProxyError(error)
        }
        let format = ImageFormat.sniff(original.data)
        guard skipsProcessing(of: format, for: options) else { return nil }
        if original.source == .network { metrics.recordSourceBytes(original.data.count) }
        let disposition = format.map { ContentDisposition(options: options, source: parsed.source, format: $0) }
        var image = EncodedImage(
            data: original.data, contentType: format.map(Self.contentType) ?? "application/octet-stream",
            etag: Self.etag(original.data), width: 0, height: 0, expiresAt: original.expiresAt,
            isStorable: original.isStorable, contentDisposition: disposition?.headerValue)
        image.lastModified = original.lastModified
        return image
    }

    /// A strong ETag for `data`: 18 bytes of its SHA-256, base64url.
    static func etag(_ data: Data) -> String {
        "\"" + Base64URL.encode(Array(StableHash.sha256(data).prefix(18))) + "\""
    }

    /// The pipeline request for `parsed`: its source with the colour handling asked, the proxy's
    /// rendering as the processor, and the path's `max_src_file_size` and `max_src_resolution` as
    /// the request's source limits (enforced by the loader from `Content-Length` and while
    /// streaming, and by the pipeline on bytes from disk and on the header's pixels), and the
    /// animation limits for output in `format` (``applyAnimationLimits(to:options:format:)``),
    /// the source's embedded thumbnail when `eth` (or `IMGPROXY_ENFORCE_THUMBNAIL`) asks for it,
    /// and `watermark` laid over the result.
    func request(for parsed: ProcessingPath, format: ImageFormat? = nil, watermark: ProxyWatermark? = nil) -> ImageRequest {
        let options = parsed.options
        // GIF carries no profile: its pixels are converted to sRGB whatever `scp` says, so that
        // they are never written out in a space other than the one a viewer assumes.
        let keepsProfile = !(options.stripColorProfile ?? configuration.stripsColorProfile) && options.format != .gif
        let handling: ColorProfileHandling = keepsProfile ? .keep : .convertToSRGB
        var request = ImageRequest(
            url: parsed.source,
            processors: [
                ProxyRendering(
                    options: options, maximumDimension: configuration.maximumOutputDimension, watermark: watermark,
                    linearLight: configuration.usesLinearLight, shrinksOnLoad: configuration.shrinksOnLoad)
            ],
            colorProfileHandling: handling)
        request.maximumSourceByteCount = options.maximumSourceBytes
        request.maximumSourcePixelCount = options.maximumSourcePixels
        request.prefersEmbeddedThumbnail = options.enforceThumbnail ?? configuration.enforcesThumbnail
        // Always, whatever this path keeps of it: every variant of a source then shares one decode
        // (the metadata costs a few kilobytes beside its pixels, `ImageMetadata.maximumBlockSize` at most a block).
        request.readsMetadata = true
        applyAnimationLimits(to: &request, options: options, format: format)
        if [LocalFileDataLoader.scheme, FallbackImage.scheme].contains(parsed.source.scheme?.lowercased()) {
            // A local file is as near as the disk cache, and a copy there would outlive a change
            // of root (a cache folder kept across runs) or of the file itself.
            request.cachePolicy = ImageRequest.CachePolicy(readsDisk: false, writesDisk: false)
        }
        return request
    }

    /// The reduction a source of `size` (after its EXIF orientation) is decoded at for `options`:
    /// the largest of 1/8, 1/4, 1/2 whose pixels still cover what the geometry needs, or 1.
    static func reduction(for size: PixelSize, options: ProcessingOptions, maximumDimension: Int) -> Int {
        ImagePipeline.reduction(
            for: ProxyGeometry(source: size, options: options, maximumDimension: maximumDimension).requiredScale)
    }

    static func contentType(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .jxl: "image/jxl"
        case .gif: "image/gif"
        case .heif: "image/heif"
        default: "application/octet-stream"
        }
    }

    /// `bitmap` composited onto `background`, opaque.
    static func flatten(_ bitmap: Bitmap, onto background: RGBA) -> Bitmap {
        var pixels = bitmap.pixels
        let premultiplied = bitmap.alphaMode == .premultiplied
        let backdrop = [Int(background.r), Int(background.g), Int(background.b)]
        var index = 0
        while index + 3 < pixels.count {
            let alpha = Int(pixels[index + 3])
            for channel in 0..<3 {
                let value = Int(pixels[index + channel])
                let covered = premultiplied ? value * 255 : value * alpha
                pixels[index + channel] = UInt8(min(255, (covered + backdrop[channel] * (255 - alpha) + 127) / 255))
            }
            pixels[index + 3] = 255
            index += 4
        }
        return Bitmap(width: bitmap.width, height: bitmap.height, alphaMode: .opaque, pixels: pixels)
    }
}
#endif
