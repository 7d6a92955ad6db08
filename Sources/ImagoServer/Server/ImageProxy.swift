#if os(Linux) || os(macOS)
import Crypto
import Foundation
import Imago

/// The image proxy without its HTTP server: a request path and two request headers in, a
/// ``ProxyResponse`` out. ``ImagoServer`` mounts it on Hummingbird; another server can too.
///
/// A request: parse the path (400), check the signature (403), the output size (400) and the
/// source policy (403); serve from the response tier (encoded bytes) or, through the bounded
/// admission queue (503 when full), from the pipeline (memory, disk, network), then encode.
public final class ImageProxy: Sendable {
    public let configuration: ImageProxyConfiguration
    public let pipeline: ImagePipeline
    public let metrics: ServerMetrics
    let admission: AdmissionQueue
    private let responses: MemoryCache<String, EncodedImage>
    private let loader: GuardedDataLoader
    /// Whether this build of Imago can write WebP (`ImageContainer.encoded(as: .webp)`).
    public let canWriteWebP: Bool

    public init(
        configuration: ImageProxyConfiguration, resolver: any HostResolving = SystemResolver(),
        metrics: ServerMetrics = ServerMetrics(), diskCache: DiskCache? = nil
    ) {
        self.configuration = configuration
        self.metrics = metrics
        let loader = GuardedDataLoader(
            policy: configuration.sourcePolicy, resolver: resolver, configuration: configuration.loaderConfiguration)
        self.loader = loader
        var pipelineConfiguration = ImagePipeline.Configuration(
            dataLoader: loader, decodingLimits: configuration.decodingLimits, diskCache: diskCache,
            maximumConcurrentDownloads: max(1, configuration.maximumConcurrentRequests),
            retryPolicy: .never, metricsLabel: "imago", metricsFactory: metrics.factory)
        pipelineConfiguration.logger = configuration.logger
        pipeline = ImagePipeline(configuration: pipelineConfiguration)
        admission = AdmissionQueue(
            maximumRunning: configuration.maximumConcurrentRequests, maximumWaiting: configuration.maximumQueuedRequests)
        responses = MemoryCache(
            configuration: .init(costLimit: max(0, configuration.responseCacheBytes), countLimit: 100_000))
        canWriteWebP = (try? ImageContainer(bitmap: Bitmap(width: 1, height: 1, fill: RGBA(0, 0, 0)), format: .png)
            .encoded(as: .webp)) != nil
    }

    /// Closes the source connections.
    public func shutdown() async {
        try? await loader.shutdown()
    }

    /// Requests running and waiting for a slot.
    public var admissionCounts: (running: Int, waiting: Int) { admission.counts }

    /// Answers `GET path` (no query string) with the client's `Accept` and `If-None-Match`.
    public func respond(path: String, accept: String? = nil, ifNoneMatch: String? = nil) async -> ProxyResponse {
        do {
            return try await respondOrThrow(path: path, accept: accept, ifNoneMatch: ifNoneMatch)
        } catch {
            // The client gets the code and a message; what the server found out goes to the log.
            if let detail = error.detail {
                configuration.logger.notice("\(error.status) \(error.code): \(detail)")
            }
            return .error(error)
        }
    }

    /// Parse, check, plan, then serve from the response cache or produce within admission.
    private func respondOrThrow(path: String, accept: String?, ifNoneMatch: String?) async throws(ProxyError) -> ProxyResponse {
        let parsed = try parse(path)
        try checkPolicy(parsed)
        let plan = plan(for: parsed, accept: accept)
        if let cached = responses.value(forKey: plan.key) {
            metrics.recordHit(tier: "response")
            return response(for: cached, plan: plan, ifNoneMatch: ifNoneMatch)
        }
        let outcome = await admission.run { () async -> Result<EncodedImage, ProxyError> in
            do throws(ProxyError) {
                return .success(try await self.produce(parsed, acceptsWebP: plan.acceptsWebP))
            } catch {
                return .failure(error)
            }
        }
        guard let outcome else { throw .overloaded(retryAfter: configuration.retryAfterSeconds) }
        let encoded = try outcome.get()
        responses.store(encoded, forKey: plan.key, cost: encoded.data.count + plan.key.utf8.count)
        return response(for: encoded, plan: plan, ifNoneMatch: ifNoneMatch)
    }

    /// The path's grammar: signature, options, source.
    private func parse(_ path: String) throws(ProxyError) -> ProcessingPath {
        do {
            return try ProcessingPath.parse(path)
        } catch {
            throw ProxyError(error)
        }
    }

    /// The server's rules for a parsed path: its signature, the output size, the source, the
    /// output format this build can write.
    private func checkPolicy(_ parsed: ProcessingPath) throws(ProxyError) {
        if let signer = configuration.signer, let refusal = signer.check(signature: parsed.signature, for: parsed.signedPart) {
            let message =
                refusal == .missing
                ? "this server only serves signed paths; sign it with `imago sign` and the server's key"
                : "the signature does not match the path (altered options or source, or another key)"
            throw ProxyError(status: 403, code: refusal.code, message: message)
        }
        let options = parsed.options
        let limit = configuration.maximumOutputDimension
        guard options.pixelWidth <= limit, options.pixelHeight <= limit else {
            throw ProxyError(
                status: 400, code: "too_large",
                message: "the output would be \(options.pixelWidth)x\(options.pixelHeight) pixels; this server makes at most \(limit) a side")
        }
        if let reason = configuration.sourcePolicy.refusal(for: parsed.source) {
            throw ProxyError(
                status: 403, code: "forbidden_source",
                message: SourcePolicy.clientMessage(forLoaderReason: reason) ?? SourcePolicy.refusalMarker, detail: reason)
        }
        if options.format == .webp, !canWriteWebP {
            throw ProxyError(
                status: 400, code: "unsupported_output", message: "this build cannot write WebP yet; ask for f:jpeg, f:png or f:auto")
        }
    }

    /// What a request's response will be, before it is made.
    private struct ResponsePlan {
        /// The response cache's key: negotiated format, options, colour handling and source.
        var key: String
        /// Whether `f:auto` may answer WebP (the client's `Accept` names it).
        var acceptsWebP: Bool
        /// `Cache-Control: max-age`, longer for signed paths.
        var maxAge: Int
        /// Whether the response varies with `Accept` (`f:auto`).
        var varies: Bool
    }

    /// Negotiates the output format with `accept` and names the response.
    private func plan(for parsed: ProcessingPath, accept: String?) -> ResponsePlan {
        let options = parsed.options
        let acceptsWebP = canWriteWebP && (accept ?? "").lowercased().contains("image/webp")
        let negotiated = options.format == .auto ? (acceptsWebP ? "webp" : "nowebp") : options.format.rawValue
        let strips = options.stripColorProfile ?? configuration.stripsColorProfile
        return ResponsePlan(
            key: "\(negotiated)|\(options.canonical)|\(strips ? "srgb" : "kept")|\(parsed.source.absoluteString)",
            acceptsWebP: acceptsWebP,
            maxAge: configuration.signer == nil ? configuration.unsignedMaxAge : configuration.signedMaxAge,
            varies: options.format == .auto)
    }

    private func response(for image: EncodedImage, plan: ResponsePlan, ifNoneMatch: String?) -> ProxyResponse {
        var headers = [("ETag", image.etag), ("Cache-Control", "public, max-age=\(plan.maxAge)")]
        if plan.varies { headers.append(("Vary", "Accept")) }
        if let ifNoneMatch, Self.matches(ifNoneMatch, etag: image.etag) {
            return ProxyResponse(status: 304, headers: headers)
        }
        headers.insert(("Content-Type", image.contentType), at: 0)
        return ProxyResponse(status: 200, headers: headers, body: image.data)
    }

    /// Whether an `If-None-Match` list names `etag` (or is `*`); weak validators compare equal
    /// by their opaque part, as RFC 9110 says for `If-None-Match`.
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            var tag = item.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }

    /// Loads, resizes and encodes.
    private func produce(_ parsed: ProcessingPath, acceptsWebP: Bool) async throws(ProxyError) -> EncodedImage {
        let options = parsed.options
        let resize = ProxyResizeProcessor(
            type: options.resizingType, width: options.pixelWidth, height: options.pixelHeight, enlarge: options.enlarge,
            maximumDimension: configuration.maximumOutputDimension)
        var request = ImageRequest(url: parsed.source, processors: [resize])
        request.colorProfileHandling = options.stripColorProfile ?? configuration.stripsColorProfile ? .convertToSRGB : .keep
        request.maximumPixelSize = resize.shrinkOnLoadSide
        let loaded: ImageResponse
        do {
            loaded = try await pipeline.image(for: request)
        } catch {
            throw ProxyError(error)
        }
        metrics.recordHit(tier: loaded.source.rawValue)
        if loaded.source == .network, let count = loaded.encodedByteCount { metrics.recordSourceBytes(count) }
        do throws(ImagePipeline.Error) {
            var bitmap = try loaded.container.bitmap()
            let format: ImageFormat
            switch options.format {
            case .jpeg: format = .jpeg
            case .png: format = .png
            case .webp: format = .webp
            case .auto: format = acceptsWebP ? .webp : (bitmap.alphaMode == .opaque ? .jpeg : .png)
            }
            if format == .jpeg, let background = options.background, bitmap.alphaMode != .opaque {
                bitmap = Self.flatten(bitmap, onto: background)
            }
            let quality = options.quality ?? configuration.defaultQuality
            // JPEG: progressive, through the encoder itself; PNG and WebP through the container.
            var data =
                format == .jpeg
                ? try JPEGEncoder(quality: quality, progressive: true).encode(bitmap)
                : try ImageContainer(bitmap: bitmap, format: format).encoded(as: format, quality: format == .png ? nil : quality)
            // Pixels that kept the source's profile (`scp:0`) carry it; sRGB goes out without one.
            if let profile = loaded.container.pixelColorProfile { data = try profile.embedded(in: data, format: format) }
            let digest = SHA256.hash(data: data)
            let etag = "\"" + Base64URL.encode(Array(digest.prefix(18))) + "\""
            return EncodedImage(
                data: data, contentType: Self.contentType(format), etag: etag, width: bitmap.width, height: bitmap.height)
        } catch {
            throw ProxyError(error)
        }
    }

    static func contentType(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
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
