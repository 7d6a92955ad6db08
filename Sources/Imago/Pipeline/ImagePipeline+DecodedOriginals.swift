import Foundation

extension ImagePipeline {
    /// What a processed request needs of its source: which decoded original, and how much of the
    /// source's resolution (``ImageProcessing/requiredSourceScale(for:)``).
    struct OriginalNeed: Sendable {
        var source: DecodedOriginals.SourceKey
        var requiredScale: @Sendable (PixelSize) -> Double
    }

    /// The need of `request`, or `nil` for a request with no processing (its image is the memory
    /// cache's, decoded whole).
    func originalNeed(for request: ImageRequest) -> OriginalNeed? {
        guard request.isProcessed else { return nil }
        let requiredScale: @Sendable (PixelSize) -> Double
        if let size = request.thumbnailSize {
            requiredScale = { source in min(1, Double(max(1, size)) / Double(max(1, source.width, source.height))) }
        } else if let first = request.processors.first {
            requiredScale = { source in min(1, max(0, first.requiredSourceScale(for: source))) }
        } else {
            return nil
        }
        return OriginalNeed(
            source: DecodedOriginals.SourceKey(
                original: request.originalKey, handling: request.colorProfileHandling, frames: request.maximumAnimationFrames,
                embeddedThumbnail: request.prefersEmbeddedThumbnail, metadata: request.readsMetadata),
            requiredScale: requiredScale)
    }

    /// The reductions a source is decoded at: 1/8, 1/4, 1/2 of each side (JPEG's DCT scales, and
    /// the buckets other formats are decoded to).
    static let reductions = [8, 4, 2]

    /// The largest of ``reductions`` whose pixels still cover `requiredScale`, or 1.
    package static func reduction(for requiredScale: Double) -> Int {
        reductions.first { 1 / Double($0) >= requiredScale } ?? 1
    }

    /// The most pixels a decode for `request` may hold when its header cannot be read: the
    /// request's ``ImageRequest/maximumSourcePixelCount``, within the pipeline's decoded-pixel
    /// ceiling (``DecodingLimits/maximumPixelCount``).
    func unknownSourcePixels(for request: ImageRequest) -> Int {
        min(configuration.decodingLimits.maximumPixelCount, request.maximumSourcePixelCount ?? .max)
    }

    /// When bytes loaded now stop being fresh, on ``Configuration/now``.
    func expiresAt(of loaded: LoadedData) -> Date? {
        switch loaded.expiry {
        case .date(let date):
            return date
        case .lifetime(let lifetime):
            let effective = lifetime ?? configuration.diskCache?.configuration.entryLifetime
            return effective.map {
                configuration.now().addingTimeInterval(Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18)
            }
        }
    }

    /// The request's ``ImageRequest/maximumSourceByteCount`` and ``ImageRequest/maximumSourcePixelCount``
    /// against a source of `bytes` bytes and `size` pixels (after its orientation), and with
    /// `frames` (declared by an animation), its animation limits: each frame against
    /// ``ImageRequest/maximumAnimationFramePixels`` when set, else the frames decoded together
    /// against ``ImageRequest/maximumSourcePixelCount`` when ``ImageRequest/maximumAnimationFrames``
    /// is set (imgproxy's rule).
    func checkSourceLimits(bytes: Int?, size: PixelSize?, frames: Int? = nil, for request: ImageRequest) throws(Error) {
        if let limit = request.maximumSourceByteCount, let bytes, bytes > limit {
            throw .sourceTooLarge(request.url, .bytes(limit: limit, actual: bytes))
        }
        guard let size else { return }
        // The frames this request decodes of an animation, as imgproxy counts them.
        let decodedFrames = min(max(frames ?? 1, 1), request.maximumAnimationFrames ?? .max)
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        if decodedFrames > 1, let limit = request.maximumAnimationFramePixels {
            if overflow || pixels > limit {
                throw .sourceTooLarge(
                    request.url,
                    .animationPixels(limit: limit, width: size.width, height: size.height, frames: decodedFrames, perFrame: true))
            }
            return
        }
        if decodedFrames > 1, request.maximumAnimationFrames != nil, let limit = request.maximumSourcePixelCount {
            let (total, overflow2) = pixels.multipliedReportingOverflow(by: decodedFrames)
            if overflow || overflow2 || total > limit {
                throw .sourceTooLarge(
                    request.url,
                    .animationPixels(limit: limit, width: size.width, height: size.height, frames: decodedFrames, perFrame: false))
            }
            return
        }
        if let limit = request.maximumSourcePixelCount, overflow || pixels > limit {
            throw .sourceTooLarge(request.url, .pixels(limit: limit, width: size.width, height: size.height))
        }
    }

    /// The frames `data` declares (``ImageHeader/frameCount(_:)``) when `request` limits
    /// animations; `nil` otherwise (nothing is counted for it).
    func declaredFrames(_ data: Data, for request: ImageRequest) -> Int? {
        guard request.maximumAnimationFrames != nil || request.maximumAnimationFramePixels != nil else { return nil }
        return ImageHeader.frameCount(data)
    }

    /// The decoded original for `need` made from `loaded`: a fresh kept entry of these bytes that
    /// covers the request, or a decode at the largest reduction that does (joining one under way
    /// for the same source and reduction), kept in the tier as its bounds allow.
    func decodedOriginal(
        _ loaded: LoadedData, need: OriginalNeed, for request: ImageRequest
    ) async throws(Error) -> DecodedOriginals.Entry {
        let expiresAt = expiresAt(of: loaded)
        let isStorable = !loaded.storage.isForbidden
        // The source as it is now: kept decodes of other bytes go, those of the same bytes are
        // fresh again (a revalidation) and may serve this request.
        decodedOriginals.refresh(need.source, fingerprint: loaded.fingerprint, expiresAt: expiresAt, isStorable: isStorable)
        let fingerprint = loaded.fingerprint
        if let entry = decodedOriginals.lookup(
            need.source, requiredScale: need.requiredScale, now: configuration.now(), fingerprint: fingerprint)
        {
            return entry
        }
        let header = ImageHeader.probe(loaded.data)
        let oriented = header.map { header in
            // The size after the EXIF orientation (5–8 turn the image), which processors are about.
            (ImageHeader.details(loaded.data)?.orientation ?? 1) >= 5
                ? PixelSize(width: header.height, height: header.width) : PixelSize(width: header.width, height: header.height)
        }
        try checkSourceLimits(bytes: nil, size: oriented, frames: declaredFrames(loaded.data, for: request), for: request)
        // An embedded thumbnail has a size of its own, which the header does not give: the
        // reduction and the source's size come from the decoded thumbnail. A file that lists no
        // thumbnail (`thmb`) is its primary image, reduced as without the preference.
        let readsThumbnail = request.prefersEmbeddedThumbnail && header.map { [.heif, .avif].contains($0.format) } == true
            && Self.listsEmbeddedThumbnail(loaded.data)
        let sized = readsThumbnail ? nil : oriented
        let required = sized.map(need.requiredScale) ?? 1
        let reduction = Self.reduction(for: required)
        let key = DecodedOriginals.Key(source: need.source, reduction: reduction)
        // Only a decode of these very bytes is shared: a caller that loaded newer bytes never
        // joins a decode of older ones.
        let flight = OriginalDecodeKey(key: key, fingerprint: fingerprint)
        let decode = OriginalDecode(
            loaded: loaded, url: request.url, header: header, oriented: sized, reduction: reduction,
            handling: request.colorProfileHandling, expiresAt: expiresAt, isStorable: isStorable,
            unknownPixels: unknownSourcePixels(for: request), frameLimit: request.maximumAnimationFrames,
            prefersEmbeddedThumbnail: request.prefersEmbeddedThumbnail, readsMetadata: request.readsMetadata)
        let now = configuration.now()
        var result: Result<DecodedOriginals.Entry, Error>
        repeat {
            // The decode runs in the task of the caller that starts it, so it stops when that
            // caller is cancelled: a caller that joined it, and is not cancelled itself, decodes
            // again instead of failing with another's cancellation.
            result = await originalDecodes.run(flight) { [self] () -> Result<DecodedOriginals.Entry, Error> in
                // A decode that finished between this request's lookup and its flight has been kept.
                if let entry = decodedOriginals.lookup(need.source, requiredScale: need.requiredScale, now: now, fingerprint: fingerprint) {
                    return .success(entry)
                }
                do throws(Error) {
                    let entry = try await decodeOriginal(decode)
                    keep(entry, for: key, requiredScale: required)
                    return .success(entry)
                } catch {
                    return .failure(error)
                }
            }
        } while result.isCancellation && !Task.isCancelled
        let entry = try result.get()
        // A source whose header could not be read (a format of a decoder of your own) is checked
        // on its decoded size.
        if sized == nil { try checkSourceLimits(bytes: nil, size: entry.sourceSize, for: request) }
        return entry
    }

    /// Whether the HEIF or AVIF file `data` lists a thumbnail of its primary image (its boxes, read
    /// without decoding); `false` when they cannot be read.
    static func listsEmbeddedThumbnail(_ data: Data) -> Bool {
        ((try? ISOBMFFHeader.parse(data))?.thumbnailCount ?? 0) > 0
    }

    /// A decode of an original under way: the tier's key and the fingerprint of the bytes decoded.
    struct OriginalDecodeKey: Hashable, Sendable {
        var key: DecodedOriginals.Key
        var fingerprint: String
    }

    /// What one decode of an original is made from.
    struct OriginalDecode: Sendable {
        var loaded: LoadedData
        var url: URL
        var header: ImageHeader?
        var oriented: PixelSize?
        var reduction: Int
        var handling: ColorProfileHandling
        var expiresAt: Date?
        var isStorable: Bool
        /// What the decode budget counts for a source whose header cannot be read.
        var unknownPixels: Int
        /// The most frames of an animation decoded (``ImageRequest/maximumAnimationFrames``).
        var frameLimit: Int?
        /// Whether the source's embedded thumbnail is decoded (``ImageRequest/prefersEmbeddedThumbnail``).
        var prefersEmbeddedThumbnail: Bool
        /// Whether the source's metadata is read and kept with the decode (``ImageRequest/readsMetadata``).
        var readsMetadata = false
    }

    /// Decodes an original at its reduction within the decode budget, counts it, and reduces at
    /// once what a decoder could not reduce on load (HEIF, AVIF).
    private func decodeOriginal(_ decode: OriginalDecode) async throws(Error) -> DecodedOriginals.Entry {
        let data = decode.loaded.data
        let reduction = decode.reduction
        let target = decode.oriented.flatMap { size in
            reduction > 1 ? PixelSize(width: (size.width + reduction - 1) / reduction, height: (size.height + reduction - 1) / reduction) : nil
        }
        let container = try await decodeBudget.withReservation(bytes: Self.estimatedBytes(decode.header, reduction: reduction, unknownPixels: decode.unknownPixels)) {
            () throws(Error) -> ImageContainer in
            decodeCounter.add(1, ordering: .relaxed)
            guard let format = configuration.decoders.sniff(data) else {
                // Unknown bytes: the default decoder names what they look like (HTML, empty…).
                return try ImageDecoder.decode(data, url: decode.url, limits: configuration.decodingLimits)
            }
            var context = DecodingContext(
                format: format, url: decode.url, limits: configuration.decodingLimits,
                maximumPixelSize: target.map { max($0.width, $0.height) }, colorProfileHandling: decode.handling,
                policy: configuration.decodingPolicy)
            context.frameLimit = decode.frameLimit
            context.prefersEmbeddedThumbnail = decode.prefersEmbeddedThumbnail
            var container = try configuration.decoders.decode(data, context: context)
            if let target { container = try Self.reduced(container, to: target) }
            return container
        }
        var kept = container
        let decoded = container.pixelSize
        kept.sourcePixelSize = decode.oriented.map { Self.orientedSize($0, decoded: decoded) } ?? decoded
        if decode.readsMetadata { kept.metadata = ImageMetadata.read(from: data) }
        return DecodedOriginals.Entry(
            container: kept, expiresAt: decode.expiresAt, isStorable: decode.isStorable, fingerprint: decode.loaded.fingerprint,
            encodedByteCount: data.count, lastModified: decode.loaded.lastModified)
    }

    /// `container` resampled to `target` when its decoder made it more than twice as large as
    /// asked (decoders that cannot reduce on load: HEIF, AVIF, some of your own); stills only.
    static func reduced(_ container: ImageContainer, to target: PixelSize) throws(Error) -> ImageContainer {
        let size = container.pixelSize
        guard !container.isAnimated, max(size.width, size.height) > 2 * max(target.width, target.height) else {
            return container
        }
        // The decoded pixels may be turned from the header's shape (an orientation the header
        // reader does not see): keep their own shape.
        let turned = (size.width > size.height) != (target.width > target.height) && target.width != target.height
        let shape = turned ? PixelSize(width: target.height, height: target.width) : target
        var result = container
        result.image = try ImageContainer.makeImage(from: Resampler.resample(try container.bitmap(), to: shape))
        result.gainMap = container.gainMap(resampledFrom: size, to: shape)
        return result
    }

    /// Bytes of pixels a decode of a source with `header` at `reduction` holds: JPEG and WebP
    /// decode at the reduction, PNG and GIF at about twice it (their box reducer), HEIF, AVIF and
    /// the rest at full size. A source whose header cannot be read (damaged, or a format of a
    /// decoder of your own) counts at `unknownPixels`, the most pixels its decode may have.
    static func estimatedBytes(_ header: ImageHeader?, reduction: Int, unknownPixels: Int) -> Int {
        guard let header else {
            let (bytes, overflow) = max(0, unknownPixels).multipliedReportingOverflow(by: Bitmap.bytesPerPixel)
            return overflow ? Int.max / 2 : bytes
        }
        let divisor =
            switch header.format {
            case .jpeg, .webp: reduction
            case .png, .gif: max(1, reduction / 2)
            default: 1
            }
        let width = (max(0, header.width) + divisor - 1) / divisor
        let height = (max(0, header.height) + divisor - 1) / divisor
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        let (bytes, overflow2) = pixels.multipliedReportingOverflow(by: Bitmap.bytesPerPixel)
        return overflow || overflow2 ? Int.max / 2 : bytes
    }

    /// Keeps `entry` under `key`: whole when it fits an entry's share of the tier; otherwise the
    /// largest size its requests asked for (`requiredScale` of the source, or what is kept under
    /// `key` already), when that fits; otherwise nothing.
    private func keep(_ entry: DecodedOriginals.Entry, for key: DecodedOriginals.Key, requiredScale: Double) {
        guard entry.isStorable, decodedOriginals.byteLimit > 0 else { return }
        if decodedOriginals.store(entry, for: key) { return }
        guard !entry.container.isAnimated else { return }
        var scale = requiredScale
        if let kept = decodedOriginals.entry(for: key), kept.fingerprint == entry.fingerprint {
            scale = max(scale, min(kept.scale.x, kept.scale.y))
        }
        let source = entry.sourceSize
        let pixels = entry.container.pixelSize
        let wanted = PixelSize(
            width: min(pixels.width, max(1, Int((Double(source.width) * scale).rounded(.up)))),
            height: min(pixels.height, max(1, Int((Double(source.height) * scale).rounded(.up)))))
        guard wanted != pixels, wanted.width * wanted.height * Bitmap.bytesPerPixel + 256 <= decodedOriginals.maximumEntryBytes,
            let bitmap = try? entry.container.bitmap(),
            let image = try? ImageContainer.makeImage(from: Resampler.resample(bitmap, to: wanted))
        else { return }
        var reduced = entry
        reduced.container.image = image
        reduced.container.gainMap = entry.container.gainMap(resampledFrom: pixels, to: wanted)
        decodedOriginals.store(reduced, for: key)
    }

    /// `header` (the size after the orientation the file's header states), turned when the
    /// decoded pixels are the other way round (an orientation stated where the header reader does
    /// not look): processors place things on the pixels' shape.
    static func orientedSize(_ header: PixelSize, decoded: PixelSize) -> PixelSize {
        let disagree =
            header.width != header.height && decoded.width != decoded.height
            && (header.width > header.height) != (decoded.width > decoded.height)
        return disagree ? PixelSize(width: header.height, height: header.width) : header
    }
}

extension Result<DecodedOriginals.Entry, ImagePipeline.Error> {
    /// Whether the decode stopped because the task that ran it was cancelled.
    fileprivate var isCancellation: Bool {
        if case .failure(.cancelled) = self { return true }
        return false
    }
}
