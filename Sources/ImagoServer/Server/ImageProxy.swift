#if os(Linux)
import Foundation
import Imago

/// The image proxy without its HTTP server: a request path and two request headers in, a
/// ``ProxyResponse`` out. ``ImagoServer`` mounts it on Hummingbird; another server can too.
///
/// A request: parse the path (400; presets expanded), check the signature (403), the expiry
/// (404), the security options (403), the output size (400) and the source policy (403); serve
/// from the response tier (encoded bytes) or, through the bounded admission queue (429 when
/// full; a request whose client goes while it waits leaves the queue unmade, 499), make it:
/// `pipeline.image(for:)` with the proxy's renderer as the request's processor (the pipeline's
/// tier of decoded originals, or its disk cache or network, decoded at the reduction the
/// renderer needs), then encoded (`ImageProxy+Produce.swift`). The pipeline has no memory cache
/// of its own: the encoded response is what is kept, once.
public final class ImageProxy: Sendable {
    public let configuration: ImageProxyConfiguration
    public let pipeline: ImagePipeline
    public let metrics: ServerMetrics
    let admission: AdmissionQueue
    let responses: MemoryCache<String, EncodedImage>
    private let loader: GuardedDataLoader
    /// The configuration's source policy, with `local:` sources allowed when there is a root.
    let sourcePolicy: SourcePolicy
    /// Whether this build of Imago can write WebP (`ImageContainer.encoded(as: .webp)`).
    public let canWriteWebP: Bool
    /// Whether this build of Imago can write AVIF (`ImageContainer.encoded(as: .avif)`).
    public let canWriteAVIF: Bool
    /// Whether this build of Imago can write JPEG XL (`ImageContainer.encoded(as: .jxl)`).
    public let canWriteJXL: Bool

    public init(
        configuration: ImageProxyConfiguration, resolver: any HostResolving = SystemResolver(),
        metrics: ServerMetrics = ServerMetrics(), diskCache: DiskCache? = nil
    ) {
        self.configuration = configuration
        self.metrics = metrics
        let loader = GuardedDataLoader(
            policy: configuration.sourcePolicy, resolver: resolver, configuration: configuration.loaderConfiguration)
        self.loader = loader
        // `local:///` sources, when the server has a root, are read from it; the rest is fetched.
        var sourcePolicy = configuration.sourcePolicy
        sourcePolicy.allowsLocalFiles = configuration.localFilesystemRoot != nil
        sourcePolicy.allowsS3 = configuration.s3 != nil
        self.sourcePolicy = sourcePolicy
        var sourceLoader: any DataLoading =
            configuration.localFilesystemRoot.map {
                LocalFileDataLoader(
                    root: $0, network: loader, maximumBodySize: configuration.loaderConfiguration.maximumBodySize,
                    querySeparator: SourceURLQuerySeparator(configuration.sourceURLQuerySeparator))
            } ?? loader
        if case .data(let data)? = configuration.fallbackImage?.source {
            sourceLoader = FallbackDataLoader(data: data, next: sourceLoader)
        }
        if let s3 = configuration.s3 {
            sourceLoader = S3DataLoader(
                configuration: s3, transport: loader, next: sourceLoader, now: configuration.now,
                querySeparator: SourceURLQuerySeparator(configuration.sourceURLQuerySeparator))
        }
        var decoders = ImageDecoderRegistry()
        for decoder in configuration.decoders { decoders.register(decoder) }
        // No memory cache: what is kept of a render is its encoded response (`responses`).
        var pipelineConfiguration = ImagePipeline.Configuration(
            dataLoader: sourceLoader, decoders: decoders, decodingLimits: configuration.decodingLimits, memoryCache: nil,
            diskCache: diskCache,
            maximumConcurrentDownloads: max(1, configuration.maximumConcurrentRequests),
            retryPolicy: .never, metricsLabel: "imago", metricsFactory: metrics.factory)
        pipelineConfiguration.logger = configuration.logger
        pipelineConfiguration.decodedOriginalsBytes = max(0, configuration.decodedSourceBytes)
        pipelineConfiguration.decodedOriginalsEntryFraction = configuration.decodedSourceEntryFraction
        pipelineConfiguration.maximumDecodingBytes = configuration.decodingBytes
        pipelineConfiguration.now = configuration.now
        if configuration.localFilesystemRoot != nil { pipelineConfiguration.additionalSchemes.insert(LocalFileDataLoader.scheme) }
        if configuration.s3 != nil { pipelineConfiguration.additionalSchemes.insert(S3DataLoader.scheme) }
        pipelineConfiguration.additionalSchemes.insert(FallbackImage.scheme)
        pipeline = ImagePipeline(configuration: pipelineConfiguration)
        admission = AdmissionQueue(
            maximumRunning: configuration.maximumConcurrentRequests, maximumWaiting: configuration.maximumQueuedRequests)
        responses = MemoryCache(
            configuration: .init(costLimit: max(0, configuration.responseCacheBytes), countLimit: 100_000))
        let probe = try? ImageContainer(bitmap: Bitmap(width: 1, height: 1, fill: RGBA(0, 0, 0)), format: .png)
        canWriteWebP = (try? probe?.encoded(as: .webp)) != nil
        canWriteAVIF = (try? probe?.encoded(as: .avif)) != nil
        canWriteJXL = (try? probe?.encoded(as: .jxl)) != nil
    }

    /// Closes the source connections.
    public func shutdown() async {
        try? await loader.shutdown()
    }

    /// Answers `GET path` (no query string) with the client's `Accept`, `If-None-Match` and
    /// `If-Modified-Since` (read only with ``ImageProxyConfiguration/usesLastModified``), and its
    /// client hints by header name (`Sec-CH-DPR`, `DPR`, `Sec-CH-Width`, `Width`; read only with
    /// ``ImageProxyConfiguration/readsClientHints``). A request that waits for a slot and whose
    /// task is cancelled meanwhile leaves the queue at once, unmade (499 `client_closed_request`).
    public func respond(
        path: String, accept: String? = nil, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil,
        clientHints: [String: String] = [:]
    ) async -> ProxyResponse {
        await respond(
            path: path, accept: accept, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince,
            clientHint: { name in clientHints.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value },
            departure: nil)
    }

    /// ``respond(path:accept:ifNoneMatch:ifModifiedSince:clientHints:)`` for a client whose going
    /// `departure` reports: if it goes while the request waits for a slot, the request leaves the
    /// queue, unmade. `clientHint` looks a hint's header up by name.
    func respond(
        path: String, accept: String?, ifNoneMatch: String?, ifModifiedSince: String? = nil,
        clientHint: (String) -> String? = { _ in nil }, departure: ClientDeparture?
    ) async -> ProxyResponse {
        let conditions = Conditions(ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince)
        let defaults = configuration.readsClientHints ? Self.hintedDefaults(clientHint) : ProcessingOptions()
        do {
            return try await respondOrThrow(
                path: path, defaults: defaults, accept: accept, conditions: conditions, departure: departure)
        } catch {
            // The client gets the code and a message; what the server found out goes to the log.
            if let detail = error.detail {
                configuration.logger.notice("\(error.status) \(error.code): \(detail)")
            }
            return .error(error, includingDetail: configuration.sendsErrorDetails)
        }
    }

    /// Parse, check, plan, then serve from the response cache or produce within admission.
    private func respondOrThrow(
        path: String, defaults: ProcessingOptions, accept: String?, conditions: Conditions, departure: ClientDeparture?
    ) async throws(ProxyError) -> ProxyResponse {
        let parsed = try parse(path, defaults: defaults)
        try checkPolicy(parsed)
        let plan = plan(for: parsed, accept: accept)
        if let cached = responses.value(forKey: plan.key) {
            if let expiresAt = cached.expiresAt, expiresAt <= configuration.now() {
                responses.removeValue(forKey: plan.key)  // made from a source that is no longer fresh
            } else {
                metrics.recordHit(tier: "response")
                return response(for: cached, plan: plan, conditions: conditions)
            }
        }
        let outcome = await admission.run(departure: departure) { () async -> Result<EncodedImage, ProxyError> in
            do throws(ProxyError) {
                return .success(try await self.produceOrFallback(parsed, format: plan.format))
            } catch {
                return .failure(error)
            }
        }
        let encoded: EncodedImage
        switch outcome {
        case .ran(let result): encoded = try result.get()
        case .shed: throw .overloaded(retryAfter: configuration.retryAfterSeconds)
        case .abandoned:
            // nginx's 499: logged and counted; the client, gone, reads nothing.
            metrics.recordAbandonedWait()
            throw ProxyError(
                status: 499, code: "client_closed_request",
                message: "the client closed its connection while the request waited for a slot; the image was not made")
        }
        if encoded.isStorable {
            responses.store(encoded, forKey: plan.key, cost: encoded.data.count + plan.key.utf8.count)
        }
        return response(for: encoded, plan: plan, conditions: conditions)
    }

    /// The path's grammar: signature, options (over `defaults`), source.
    private func parse(_ path: String, defaults: ProcessingOptions) throws(ProxyError) -> ProcessingPath {
        do {
            return try ProcessingPath.parse(
                path, presets: configuration.presets, rules: configuration.pathRules, defaults: defaults)
        } catch {
            throw ProxyError(error)
        }
    }

    /// The server's rules for a parsed path: its signature, its expiry, the security options, the
    /// output size, the source, the output format this build can write.
    private func checkPolicy(_ parsed: ProcessingPath) throws(ProxyError) {
        if let signer = configuration.signer, let refusal = signer.check(signature: parsed.signature, for: parsed.signedPart) {
            let message =
                refusal == .missing
                ? "this server only serves signed paths; sign it with `imago sign` and the server's key"
                : "the signature does not match the path (altered options or source, or another key)"
            throw ProxyError(status: 403, code: refusal.code, message: message)
        }
        let options = parsed.options
        if let expires = options.expires, Double(expires) < configuration.now().timeIntervalSince1970 {
            // imgproxy answers an expired URL with 404.
            throw ProxyError(status: 404, code: "expired", message: "the URL expired (expires:\(expires))")
        }
        if !configuration.allowsSecurityOptions,
            options.maximumSourcePixels != nil || options.maximumSourceBytes != nil || options.maximumResultDimension != nil
                || options.maximumAnimationFrames != nil || options.maximumAnimationFramePixels != nil
        {
            // imgproxy's security options: they may only lower the server's limits, and only
            // where the operator allows URLs to set them.
            throw ProxyError(
                status: 403, code: "forbidden_option",
                message: "max_src_resolution, max_src_file_size, max_result_dimension, max_animation_frames and max_animation_frame_resolution are security options, which this server does not take from URLs")
        }
        try checkOutputSize(options)
        if parsed.source.scheme?.lowercased() == LocalFileDataLoader.scheme, configuration.localFilesystemRoot == nil {
            // imgproxy answers a scheme it was not configured for with 404.
            throw ProxyError(
                status: 404, code: "source_not_found",
                message: "local:// sources are off: this server has no local filesystem root (IMGPROXY_LOCAL_FILESYSTEM_ROOT)")
        }
        if parsed.source.scheme?.lowercased() == S3DataLoader.scheme, configuration.s3 == nil {
            throw ProxyError(
                status: 404, code: "source_not_found", message: "s3:// sources are off: this server has no S3 configuration (IMGPROXY_USE_S3)")
        }
        if let reason = sourcePolicy.refusal(for: parsed.source) {
            throw ProxyError(
                status: 403, code: "forbidden_source",
                message: SourcePolicy.clientMessage(forLoaderReason: reason) ?? SourcePolicy.refusalMarker, detail: reason)
        }
        if let refusal = Self.unsupportedOutput(
            options.format, canWriteWebP: canWriteWebP, canWriteAVIF: canWriteAVIF, canWriteJXL: canWriteJXL)
        {
            throw refusal
        }
    }

    /// The 400 for an output format this build cannot write, or `nil`.
    static func unsupportedOutput(
        _ format: ProcessingOptions.OutputFormat, canWriteWebP: Bool, canWriteAVIF: Bool, canWriteJXL: Bool = true
    ) -> ProxyError? {
        switch format {
        case .webp where !canWriteWebP:
            ProxyError(
                status: 400, code: "unsupported_output", message: "this build cannot write WebP yet; ask for f:jpeg, f:png or f:auto")
        case .avif where !canWriteAVIF:
            ProxyError(
                status: 400, code: "unsupported_output",
                message: "this build cannot write AVIF (libavif without an AV1 encoder); ask for f:webp, f:jpeg, f:png or f:auto")
        case .jxl where !canWriteJXL:
            ProxyError(
                status: 400, code: "unsupported_output",
                message: "this build cannot write JPEG XL (libjxl is missing); ask for f:webp, f:jpeg, f:png or f:auto")
        default:
            nil
        }
    }

    /// The sides a path gives, with its padding, within `--max-dimension` (whatever the path leaves
    /// open is bounded when the image is made: ``ProxyGeometry``).
    private func checkOutputSize(_ options: ProcessingOptions) throws(ProxyError) {
        let limit = configuration.maximumOutputDimension
        let padding = options.pixelPadding
        // Each term is at most 800,000 (parser bounds times the ratio): no overflow.
        let width = max(options.pixelWidth, 1) + padding.horizontal
        let height = max(options.pixelHeight, 1) + padding.vertical
        guard options.pixelWidth <= limit, options.pixelHeight <= limit, width <= limit, height <= limit else {
            let padded = padding.horizontal + padding.vertical > 0 ? " with its padding" : ""
            throw ProxyError(
                status: 400, code: "too_large",
                message: "the output would be \(max(options.pixelWidth, width))x\(max(options.pixelHeight, height)) pixels\(padded); this server makes at most \(limit) a side")
        }
    }

    /// What a request's response will be, before it is made.
    private struct ResponsePlan {
        /// The response cache's key: negotiated format, options, colour handling and source.
        var key: String
        /// The format the response is written in (`f:auto` negotiated; `nil`: one of the
        /// preferred formats, by the source's format and the image's alpha and animation).
        var format: ImageFormat?
        /// `Cache-Control: max-age`, longer for signed paths.
        var maxAge: Int
        /// Whether the response varies with `Accept` (`f:auto`).
        var varies: Bool
        /// The source, when the response names it as canonical (`IMGPROXY_SET_CANONICAL_HEADER`).
        var canonical: String? = nil
    }

    /// Negotiates the output format with `accept` and names the response.
    private func plan(for parsed: ProcessingPath, accept: String?) -> ResponsePlan {
        let options = parsed.options
        var format: ImageFormat? =
            switch options.format {
            case .jpeg: .jpeg
            case .png: .png
            case .webp: .webp
            case .avif: .avif
            case .gif: .gif
            case .jxl: .jxl
            case .auto:
                Self.negotiate(
                    accept: accept, canWriteJXL: canWriteJXL && configuration.negotiatesJXL, canWriteAVIF: canWriteAVIF,
                    canWriteWebP: canWriteWebP)
            }
        // imgproxy's IMGPROXY_ENFORCE_JXL / _AVIF / _WEBP: what the client takes wins over the path's format.
        let enforced = Self.negotiate(
            accept: accept, canWriteJXL: canWriteJXL && configuration.enforcesJXL,
            canWriteAVIF: canWriteAVIF && configuration.enforcesAVIF, canWriteWebP: canWriteWebP && configuration.enforcesWebP)
        if let enforced { format = enforced }
        let negotiated = format.map { "\($0)" } ?? "preferred"
        let strips = options.stripColorProfile ?? configuration.stripsColorProfile
        var maxAge = configuration.signer == nil ? configuration.unsignedMaxAge : configuration.signedMaxAge
        if let expires = options.expires {
            // Never cached beyond the URL's own expiry.
            maxAge = max(0, min(maxAge, Int(min(Double(expires) - configuration.now().timeIntervalSince1970, Double(Int32.max)))))
        }
        let scheme = parsed.source.scheme?.lowercased()
        return ResponsePlan(
            key: "\(negotiated)|\(options.canonical)|\(strips ? "srgb" : "kept")|\(metadataChoice(options))|\(parsed.source.absoluteString)",
            format: format, maxAge: maxAge,
            varies: options.format == .auto || configuration.enforcesJXL || configuration.enforcesAVIF || configuration.enforcesWebP,
            canonical: configuration.setsCanonicalHeader && (scheme == "http" || scheme == "https") ? parsed.source.absoluteString : nil)
    }

    /// What `f:auto` answers a client whose `Accept` is `accept`: JPEG XL when it names
    /// `image/jxl` and `canWriteJXL` (this build writes it and the proxy negotiates it), else AVIF
    /// when it names `image/avif`, else WebP when it names `image/webp` (each only if this build
    /// writes it): imgproxy's order. Else `nil` (one of the preferred formats,
    /// ``preferredFormat(source:animated:transparent:)``).
    static func negotiate(accept: String?, canWriteJXL: Bool = false, canWriteAVIF: Bool, canWriteWebP: Bool) -> ImageFormat? {
        let accepted = (accept ?? "").lowercased()
        if canWriteJXL, accepted.contains("image/jxl") { return .jxl }
        if canWriteAVIF, accepted.contains("image/avif") { return .avif }
        if canWriteWebP, accepted.contains("image/webp") { return .webp }
        return nil
    }

    /// A request's validators: `If-None-Match`, and `If-Modified-Since`.
    struct Conditions {
        var ifNoneMatch: String?
        var ifModifiedSince: String?
    }

    private func response(for image: EncodedImage, plan: ResponsePlan, conditions: Conditions) -> ProxyResponse {
        // A fallback image (ImageProxy+Fallback.swift) has its own status and, if shorter, max-age.
        let maxAge = image.fallbackTTL.map { min($0, plan.maxAge) } ?? plan.maxAge
        var headers = [("ETag", image.etag), ("Cache-Control", cacheControl(for: image, maxAge: maxAge))]
        // The buster only moves a source's date later; a source without one still sends none.
        let lastModified =
            configuration.usesLastModified
            ? image.lastModified.map { date in configuration.lastModifiedBuster.map { max($0, date) } ?? date } : nil
        if let lastModified { headers.append(("Last-Modified", HTTPDate.imfFixdate(lastModified))) }
        let varies = (plan.varies ? ["Accept"] : []) + (configuration.readsClientHints ? Self.clientHintHeaders : [])
        if !varies.isEmpty { headers.append(("Vary", varies.joined(separator: ", "))) }
        if let canonical = plan.canonical { headers.append(("Link", "<\(canonical)>; rel=\"canonical\"")) }
        if configuration.sendsDebugHeaders, image.width > 0 {
            headers += [
                ("X-Origin-Width", "\(image.sourceWidth)"), ("X-Origin-Height", "\(image.sourceHeight)"),
                ("X-Result-Width", "\(image.width)"), ("X-Result-Height", "\(image.height)"),
            ]
        }
        if Self.isNotModified(conditions, etag: image.etag, lastModified: lastModified) {
            return ProxyResponse(status: 304, headers: headers)
        }
        headers.insert(("Content-Type", image.contentType), at: 0)
        if let disposition = image.contentDisposition { headers.append(("Content-Disposition", disposition)) }
        return ProxyResponse(status: image.fallbackStatus ?? 200, headers: headers, body: image.data)
    }

    /// `Cache-Control` of a response: the proxy's `max-age`, or, when it passes the source's
    /// through, what is left of the source's freshness (never more) and `no-store` for a source
    /// that may not be stored.
    private func cacheControl(for image: EncodedImage, maxAge: Int) -> String {
        guard configuration.passesCacheControlThrough else { return "public, max-age=\(maxAge)" }
        if !image.isStorable { return "no-store" }
        guard let expiresAt = image.expiresAt else { return "public, max-age=\(maxAge)" }
        let left = expiresAt.timeIntervalSince(configuration.now())
        return "public, max-age=\(max(0, min(maxAge, Int(min(max(left, 0), Double(Int32.max))))))"
    }

    /// Whether `conditions` make the answer a 304, as RFC 9110 §13.2.2 orders them: an
    /// `If-None-Match` decides alone; else an `If-Modified-Since` that is an HTTP date no older
    /// than `lastModified` (whole seconds; a malformed one is ignored).
    static func isNotModified(_ conditions: Conditions, etag: String, lastModified: Date?) -> Bool {
        if let ifNoneMatch = conditions.ifNoneMatch { return matches(ifNoneMatch, etag: etag) }
        guard let lastModified, let text = conditions.ifModifiedSince, let since = HTTPDate(text) else { return false }
        return Int64(lastModified.timeIntervalSince1970.rounded(.down)) <= since.secondsSince1970
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
}
#endif
