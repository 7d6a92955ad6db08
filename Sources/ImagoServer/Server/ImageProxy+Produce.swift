#if os(Linux) || os(macOS)
import Crypto
import Foundation
import Imago

extension ImageProxy {
    /// Decodes the source (at the reduction the request allows), renders and encodes it as
    /// `format` (`nil`: JPEG for opaque output, PNG for transparent).
    func produce(_ parsed: ProcessingPath, format: ImageFormat?) async throws(ProxyError) -> EncodedImage {
        let options = parsed.options
        let source = try await decodedSource(for: parsed)
        let geometry = ProxyGeometry(
            source: source.size, options: options, maximumDimension: configuration.maximumOutputDimension)
        do throws(ImagePipeline.Error) {
            var bitmap = try ProxyRenderer(geometry: geometry, options: options).render(source.bitmap)
            let format = format ?? (bitmap.alphaMode == .opaque ? .jpeg : .png)
            if format == .jpeg, let background = options.background, bitmap.alphaMode != .opaque {
                bitmap = Self.flatten(bitmap, onto: background)
            }
            let quality = options.quality ?? configuration.defaultQuality
            // Pixels that kept the source's profile (`scp:0`) carry it; sRGB goes out without one.
            let profile = source.container.pixelColorProfile
            var data: Data
            switch format {
            case .jpeg:
                data = try JPEGEncoder(quality: quality, progressive: true).encode(bitmap)  // progressive
            case .avif:
                data = try AVIFEncoder(quality: quality, colorProfile: profile).encode(bitmap)  // the profile inside
            default:
                data = try ImageContainer(bitmap: bitmap, format: format).encoded(as: format, quality: format == .png ? nil : quality)
            }
            if let profile, format != .avif { data = try profile.embedded(in: data, format: format) }
            let digest = SHA256.hash(data: data)
            let etag = "\"" + Base64URL.encode(Array(digest.prefix(18))) + "\""
            return EncodedImage(
                data: data, contentType: Self.contentType(format), etag: etag, width: bitmap.width, height: bitmap.height,
                expiresAt: source.expiresAt, isStorable: source.isStorable)
        } catch {
            throw ProxyError(error)
        }
    }

    /// The source for `parsed`: from the decoded tier when an entry covers what the request needs
    /// and is fresh; otherwise its bytes from the pipeline (disk cache or network, within the
    /// path's `max_src_file_size`), checked against `max_src_resolution`, decoded at the largest
    /// reduction that still covers the request (joining a decode of the same under way) and kept.
    func decodedSource(for parsed: ProcessingPath) async throws(ProxyError) -> DecodedSource {
        let options = parsed.options
        let handling: ColorProfileHandling =
            options.stripColorProfile ?? configuration.stripsColorProfile ? .convertToSRGB : .keep
        let key = DecodedSourceStore.SourceKey(url: parsed.source.absoluteString, handling: handling)
        let maximumDimension = configuration.maximumOutputDimension
        let requiredScale = { @Sendable (size: PixelSize) in
            ProxyGeometry(source: size, options: options, maximumDimension: maximumDimension).requiredScale
        }
        if case .hit(let entry) = decodedSources.lookup(key, requiredScale: requiredScale, now: configuration.now()) {
            try Self.check(entry.size, bytes: entry.byteCount, against: options)
            metrics.recordHit(tier: "decoded")
            return entry
        }
        let original = try await originalData(for: parsed, handling: handling)
        // The source as it is now: kept decodes of other bytes go, those of the same bytes are
        // fresh again (a revalidation) and may serve this request.
        decodedSources.refresh(
            key, fingerprint: original.fingerprint, expiresAt: original.expiresAt, isStorable: original.isStorable)
        if case .hit(let entry) = decodedSources.lookup(key, requiredScale: requiredScale, now: configuration.now()) {
            try Self.check(entry.size, bytes: entry.byteCount, against: options)
            return entry
        }
        let header = ImageHeader.probe(original.data)
        // The size after the EXIF orientation (5–8 turn the image), which the geometry is about.
        let turned = (ImageHeader.details(original.data)?.orientation ?? 1) >= 5
        let orientedHeader = header.map {
            turned ? PixelSize(width: $0.height, height: $0.width) : PixelSize(width: $0.width, height: $0.height)
        }
        if let orientedHeader { try Self.check(orientedHeader, bytes: original.data.count, against: options) }
        let reduction = orientedHeader.map {
            Self.reduction(for: $0, options: options, maximumDimension: maximumDimension)
        } ?? 1
        var decodingLimits = configuration.decodingLimits
        if let pixels = options.maximumSourcePixels {
            decodingLimits.maximumSourcePixelCount = min(decodingLimits.maximumSourcePixelCount, pixels)
        }
        let limits = decodingLimits
        let url = parsed.source
        let flightKey = DecodedSourceStore.Key(source: key, reduction: reduction)
        let now = configuration.now()
        let result = await decodeFlights.run(flightKey) { [self] () -> Result<DecodedSource, ProxyError> in
            // A decode that finished between this request's lookup and its flight has been kept.
            if case .hit(let entry) = decodedSources.lookup(key, requiredScale: requiredScale, now: now) {
                return .success(entry)
            }
            do throws(ProxyError) {
                let decoded = try decode(
                    original, url: url, reduction: reduction, orientedHeader: orientedHeader, limits: limits, handling: handling)
                decodedSources.store(decoded, source: key, reduction: reduction)
                return .success(decoded)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The source's bytes from the pipeline, with the path's `max_src_file_size` (enforced by the
    /// loader from `Content-Length` and while streaming, and here on bytes already local).
    private func originalData(
        for parsed: ProcessingPath, handling: ColorProfileHandling
    ) async throws(ProxyError) -> ImagePipeline.OriginalData {
        var request = ImageRequest(url: parsed.source, colorProfileHandling: handling)
        if let limit = parsed.options.maximumSourceBytes {
            request.headers[GuardedDataLoader.maximumBodySizeHeader] = "\(limit)"
        }
        var original: ImagePipeline.OriginalData
        do {
            original = try await pipeline.data(for: request)
        } catch {
            throw ProxyError(error)
        }
        // The pipeline's expiry is on the system clock: the same lifetime on the proxy's clock.
        original.expiresAt = original.expiresAt.map { configuration.now().addingTimeInterval($0.timeIntervalSinceNow) }
        metrics.recordHit(tier: original.source.rawValue)
        if original.source == .network { metrics.recordSourceBytes(original.data.count) }
        return original
    }

    /// The path's `max_src_resolution` and `max_src_file_size` against a source of `size` pixels
    /// (after its orientation) and `bytes` bytes: 422 `source_too_large` beyond them.
    static func check(_ size: PixelSize, bytes: Int, against options: ProcessingOptions) throws(ProxyError) {
        if let limit = options.maximumSourceBytes, bytes > limit {
            throw ProxyError(
                status: 422, code: "source_too_large", message: "the source is larger than the URL's limit of \(limit) bytes")
        }
        // Both sides are within the decoders' limits (65,500), so the product fits.
        if let pixels = options.maximumSourcePixels, size.width * size.height > pixels {
            throw ProxyError(
                status: 422, code: "source_too_large",
                message: "the source has \(size.width)x\(size.height) pixels, more than the URL's limit of \(pixels)")
        }
    }

    /// Decodes `original` at `reduction` (the first frame, EXIF orientation applied, colour as
    /// `handling` says) and counts the decode.
    private func decode(
        _ original: ImagePipeline.OriginalData, url: URL, reduction: Int, orientedHeader: PixelSize?, limits: DecodingLimits,
        handling: ColorProfileHandling
    ) throws(ProxyError) -> DecodedSource {
        decodeCounter.add(1, ordering: .relaxed)
        let maximumPixelSize = orientedHeader.flatMap { size in
            reduction > 1 ? (max(size.width, size.height) + reduction - 1) / reduction : nil
        }
        do throws(ImagePipeline.Error) {
            let container = try ImageDecoder.decode(
                original.data, url: url, limits: limits, maximumPixelSize: maximumPixelSize, decodesAllFrames: false,
                colorProfileHandling: handling)
            let bitmap = try container.bitmap()
            let decoded = PixelSize(width: bitmap.width, height: bitmap.height)
            return DecodedSource(
                container: container, bitmap: bitmap, size: orientedHeader.map { Self.orientedSize($0, decoded: decoded) } ?? decoded,
                expiresAt: original.expiresAt, isStorable: original.isStorable, fingerprint: original.fingerprint,
                byteCount: original.data.count)
        } catch {
            throw ProxyError(error)
        }
    }

    /// The reductions a source is decoded at: 1/8, 1/4, 1/2 of each side (JPEG's DCT scales, and
    /// the buckets other formats are decoded to), or full size.
    static let reductions = [8, 4, 2]

    /// The largest of ``reductions`` whose pixels still cover what `options` need of a source of
    /// `size` (after its EXIF orientation), or 1.
    static func reduction(for size: PixelSize, options: ProcessingOptions, maximumDimension: Int) -> Int {
        let required = ProxyGeometry(source: size, options: options, maximumDimension: maximumDimension).requiredScale
        return reductions.first { 1 / Double($0) >= required } ?? 1
    }

    /// `header` (the size after the orientation the file's header states), turned when the
    /// decoded pixels are the other way round (an orientation stated where the header reader does
    /// not look): the geometry must be about the pixels' shape.
    static func orientedSize(_ header: PixelSize, decoded: PixelSize) -> PixelSize {
        let disagree =
            header.width != header.height && decoded.width != decoded.height
            && (header.width > header.height) != (decoded.width > decoded.height)
        return disagree ? PixelSize(width: header.height, height: header.width) : header
    }

    static func contentType(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .avif: "image/avif"
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
