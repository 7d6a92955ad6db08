#if os(Linux)
import Foundation
import Imago

/// What `imago serve` takes from imgproxy's environment (`IMGPROXY_*`), as a value: an
/// environment dictionary in, the settings it names out, each `nil` when its variable is unset.
///
/// It exists so that an imgproxy deployment switches to `imago serve` by changing its container
/// image: the same variables, read with imgproxy's units (seconds, megapixels, 1–100 qualities)
/// and its boolean spellings. Only variables that map onto something the proxy does are read;
/// README's "Coming from imgproxy" lists every variable and what becomes of it. The command's
/// flags win over these (`ServeCommand` applies a flag when given, else this, else its default).
///
/// A bad value fails with ``ServeEnvironmentError``, which names the variable and, for secrets
/// (keys, salts), never repeats the value.
package struct ServeEnvironment: Sendable {
    /// `IMGPROXY_BIND` (`host:port`, `:port` for every interface) or `PORT`: the address.
    package var host: String?
    /// `IMGPROXY_BIND`'s port, or `PORT`.
    package var port: Int?
    /// `IMGPROXY_WORKERS`: requests processed at once.
    package var workers: Int?
    /// `IMGPROXY_REQUESTS_QUEUE_SIZE`: requests that may wait; imgproxy's 0 (no limit) is read as
    /// the largest queue `--queue` takes, 100,000.
    package var queueSize: Int?
    /// `IMGPROXY_MAX_SRC_RESOLUTION`, megapixels (a float): the largest source a header may declare.
    package var maximumSourcePixels: Int?
    /// `IMGPROXY_MAX_SRC_FILE_SIZE`, bytes; imgproxy's 0 (no limit) leaves the proxy's own limit.
    package var maximumSourceBytes: Int?
    /// `IMGPROXY_MAX_RESULT_DIMENSION`, pixels; 0 (no limit) leaves the proxy's own limit.
    package var maximumResultDimension: Int?
    /// `IMGPROXY_TTL`, seconds: `max-age` of every response.
    package var ttl: Int?
    /// `IMGPROXY_QUALITY`, 1–100, as a fraction.
    package var quality: Double?
    /// `IMGPROXY_FORMAT_QUALITY` (`webp=79,avif=63,jxl=77`): per-format qualities, as fractions,
    /// keyed by the format's name as a path's `f:` says it (`jpeg`, `png`, `webp`, `avif`, `jxl`).
    package var formatQualities: [String: Double] = [:]
    /// `IMGPROXY_PREFERRED_FORMATS` (`jpeg,png,gif`): the formats written when neither the path nor
    /// `Accept` names one, in order (``ServeEnvironment/preferredFormats(_:)``).
    package var preferredFormats: [ImageFormat]?
    /// Names in `IMGPROXY_PREFERRED_FORMATS` that imgproxy knows but this server cannot write
    /// (`jxl`, `heic`, `tiff`…): passed over, as imgproxy passes over a format it cannot save; the
    /// command warns of them.
    package var unwritablePreferredFormats: [String] = []
    /// `IMGPROXY_PRESETS` (`name=options,name=options`, or split by `IMGPROXY_PRESETS_SEPARATOR`),
    /// then the lines of the file `IMGPROXY_PRESETS_PATH` names.
    package var presets: [String] = []
    /// `IMGPROXY_ONLY_PRESETS`.
    package var onlyPresets: Bool?
    /// `IMGPROXY_ALLOW_SECURITY_OPTIONS`.
    package var allowsSecurityOptions: Bool?
    /// `IMGPROXY_ALLOWED_SOURCES`: URL prefixes, `*` matching within one path segment.
    package var allowedSources: [String] = []
    /// `IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES`.
    package var allowsLoopbackSourceAddresses: Bool?
    /// `IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES` (unset: refused, where imgproxy allows them).
    package var allowsPrivateSourceAddresses: Bool?
    /// `IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES`.
    package var allowsLinkLocalSourceAddresses: Bool?
    /// `IMGPROXY_STRIP_COLOR_PROFILE`.
    package var stripsColorProfile: Bool?
    /// `IMGPROXY_STRIP_METADATA`.
    package var stripsMetadata: Bool?
    /// `IMGPROXY_KEEP_COPYRIGHT`.
    package var keepsCopyright: Bool?
    /// `IMGPROXY_DOWNLOAD_TIMEOUT`, seconds.
    package var downloadTimeout: Int?
    /// `IMGPROXY_USER_AGENT`: the `User-Agent` of source requests.
    package var userAgent: String?
    /// `IMGPROXY_READ_REQUEST_TIMEOUT`, seconds: the time a client has to send its request head.
    package var readRequestTimeout: Int?
    /// `IMGPROXY_WRITE_RESPONSE_TIMEOUT`, seconds: how long a response may make no progress.
    package var writeResponseTimeout: Int?
    /// `IMGPROXY_KEEP_ALIVE_TIMEOUT`, seconds: how long a keep-alive connection may stay silent.
    package var keepAliveTimeout: Int?
    /// `IMGPROXY_MAX_CLIENTS`: open client connections; imgproxy's 0 (no limit) is read as the
    /// most `--max-connections` takes, 1,000,000.
    package var maximumClients: Int?
    /// `IMGPROXY_LOCAL_FILESYSTEM_ROOT`: the folder `local:///` sources are read from.
    package var localFilesystemRoot: String?
    /// `IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`, set (empty: no separator) or not (`nil`).
    package var sourceURLQuerySeparator: String?
    /// `IMGPROXY_HEALTH_CHECK_PATH`: a path answered as `/health` is.
    package var healthCheckPath: String?
    /// `IMGPROXY_SET_CANONICAL_HEADER`.
    package var setsCanonicalHeader: Bool?
    /// `IMGPROXY_ENABLE_DEBUG_HEADERS`.
    package var sendsDebugHeaders: Bool?
    /// `IMGPROXY_DEVELOPMENT_ERRORS_MODE`: error responses carry what the server found out.
    package var sendsErrorDetails: Bool?
    /// `IMGPROXY_ENABLE_CLIENT_HINTS`.
    package var readsClientHints: Bool?
    /// `IMGPROXY_USE_LINEAR_COLORSPACE`: resize in linear light.
    package var usesLinearLight: Bool?
    /// `IMGPROXY_DISABLE_SHRINK_ON_LOAD`: every source decoded at full size.
    package var disablesShrinkOnLoad: Bool?
    /// `IMGPROXY_ALLOW_ORIGIN`: the CORS origin of processing responses.
    package var allowOrigin: String?
    /// `IMGPROXY_SECRET`: the `Authorization: Bearer` secret processing requests must carry.
    package var secret: String?
    /// imgproxy's URL settings (``ServeEnvironment/pathRules(_:)``): base URL, replacements,
    /// arguments separator, allowed options, base64 file names.
    package var pathRules: ProcessingPath.Rules?
    /// `IMGPROXY_PATH_PREFIX`: the path every route is under (``ServeEnvironment/pathPrefix(_:)``).
    package var pathPrefix: String?
    /// `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`: whether the source's freshness sets `Cache-Control`.
    package var cacheControlPassthrough: Bool?
    /// `IMGPROXY_USE_LAST_MODIFIED`: the source's `Last-Modified` passed on, `If-Modified-Since` answered.
    package var usesLastModified: Bool?
    /// `IMGPROXY_LAST_MODIFIED_BUSTER`: an RFC 3339 date no `Last-Modified` sent is older than.
    package var lastModifiedBuster: Date?

    /// `IMGPROXY_ENFORCE_AVIF`.
    package var enforcesAVIF: Bool?
    /// `IMGPROXY_ENFORCE_JXL`.
    package var enforcesJXL: Bool?
    /// `IMGPROXY_AUTO_JXL`.
    package var negotiatesJXL: Bool?
    /// `IMGPROXY_ENFORCE_WEBP`.
    package var enforcesWebP: Bool?
    /// `IMGPROXY_ENFORCE_THUMBNAIL`.
    package var enforcesThumbnail: Bool?
    /// `IMGPROXY_USE_S3` and the rest of S3's variables (``ServeEnvironment/s3(_:)``).
    package var s3: S3Configuration?
    /// `IMGPROXY_FALLBACK_IMAGE_*` (``ServeEnvironment/fallbackImage(_:)``).
    package var fallbackImage: FallbackImage?

    /// `IMGPROXY_WATERMARK_DATA`, `_PATH` or `_URL` (``ServeEnvironment/watermark(_:)``).
    package var watermark: WatermarkImage?
    /// `IMGPROXY_WATERMARK_OPACITY`.
    package var watermarkOpacity: Double?

    /// `IMGPROXY_MAX_ANIMATION_FRAMES`, `IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION`.
    package var animationLimits = AnimationLimits()
    /// `IMGPROXY_JPEG_PROGRESSIVE`, `_PNG_INTERLACED`, `_PNG_QUANTIZE`, `_PNG_QUANTIZATION_COLORS`,
    /// `_WEBP_EFFORT`, `_AVIF_SPEED`.
    package var encoders = Encoders()
    /// `IMGPROXY_SKIP_PROCESSING_FORMATS` (`jpeg,png`): source formats answered unprocessed.
    package var skipProcessingFormats: [ImageFormat]?
    /// `IMGPROXY_LOG_*`, `IMGPROXY_SYSLOG_*`, `IMGPROXY_PROMETHEUS_BIND`, `IMGPROXY_PROMETHEUS_NAMESPACE`.
    package var observability = Observability()

    package init() {}

    /// The settings `environment` names.
    /// - Throws: ``ServeEnvironmentError`` for the first variable whose value does not parse.
    package init(_ environment: [String: String]) throws(ServeEnvironmentError) {
        let reader = Reader(environment: environment)
        if let bind = reader.text("IMGPROXY_BIND") {
            guard let colon = bind.lastIndex(of: ":"), let port = Int(bind[bind.index(after: colon)...]),
                (0...65535).contains(port)
            else {
                throw ServeEnvironmentError(variable: "IMGPROXY_BIND", message: "takes HOST:PORT or :PORT, not \"\(bind)\"")
            }
            var host = String(bind[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            self.host = host.isEmpty ? "0.0.0.0" : host
            self.port = port
        } else if let port = try reader.integer("PORT", in: 0...65535) {
            self.host = "0.0.0.0"  // imgproxy's `:PORT`: every interface
            self.port = port
        }
        workers = try reader.integer("IMGPROXY_WORKERS", in: 1...4096)
        queueSize = try reader.integer("IMGPROXY_REQUESTS_QUEUE_SIZE", in: 0...100_000).map { $0 == 0 ? 100_000 : $0 }
        if let megapixels = try reader.number("IMGPROXY_MAX_SRC_RESOLUTION", in: 0.000_001...100_000) {
            maximumSourcePixels = Int(megapixels * 1_000_000)
        }
        maximumSourceBytes = try reader.integer("IMGPROXY_MAX_SRC_FILE_SIZE", in: 0...Int(Int32.max)).flatMap { $0 == 0 ? nil : $0 }
        maximumResultDimension = try reader.integer("IMGPROXY_MAX_RESULT_DIMENSION", in: 0...16384).flatMap { $0 == 0 ? nil : $0 }
        ttl = try reader.integer("IMGPROXY_TTL", in: 0...Int(Int32.max))
        quality = try reader.integer("IMGPROXY_QUALITY", in: 1...100).map { Double($0) / 100 }
        if let text = reader.text("IMGPROXY_FORMAT_QUALITY") {
            formatQualities = try Self.formatQualities(text)
        }
        if let text = reader.text("IMGPROXY_PREFERRED_FORMATS") {
            (preferredFormats, unwritablePreferredFormats) = try Self.preferredFormats(text)
        }
        if let text = reader.text("IMGPROXY_PRESETS") {
            let separator = reader.text("IMGPROXY_PRESETS_SEPARATOR") ?? ","
            presets = text.components(separatedBy: separator).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        if let path = reader.text("IMGPROXY_PRESETS_PATH") {
            presets += try Self.presetsFile(at: path)
        }
        onlyPresets = try reader.boolean("IMGPROXY_ONLY_PRESETS")
        allowsSecurityOptions = try reader.boolean("IMGPROXY_ALLOW_SECURITY_OPTIONS")
        if let text = reader.text("IMGPROXY_ALLOWED_SOURCES") {
            allowedSources = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        allowsLoopbackSourceAddresses = try reader.boolean("IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES")
        allowsPrivateSourceAddresses = try reader.boolean("IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES")
        allowsLinkLocalSourceAddresses = try reader.boolean("IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES")
        stripsColorProfile = try reader.boolean("IMGPROXY_STRIP_COLOR_PROFILE")
        stripsMetadata = try reader.boolean("IMGPROXY_STRIP_METADATA")
        keepsCopyright = try reader.boolean("IMGPROXY_KEEP_COPYRIGHT")
        downloadTimeout = try reader.integer("IMGPROXY_DOWNLOAD_TIMEOUT", in: 1...3600)
        userAgent = reader.text("IMGPROXY_USER_AGENT")
        readRequestTimeout = try reader.integer("IMGPROXY_READ_REQUEST_TIMEOUT", in: 1...3600)
        writeResponseTimeout = try reader.integer("IMGPROXY_WRITE_RESPONSE_TIMEOUT", in: 1...3600)
        keepAliveTimeout = try reader.integer("IMGPROXY_KEEP_ALIVE_TIMEOUT", in: 1...3600)
        maximumClients = try reader.integer("IMGPROXY_MAX_CLIENTS", in: 0...1_000_000).map { $0 == 0 ? 1_000_000 : $0 }
        localFilesystemRoot = reader.text("IMGPROXY_LOCAL_FILESYSTEM_ROOT")
        // Set but empty means no separator (imgproxy reads it so), unlike every other variable.
        sourceURLQuerySeparator = environment["IMGPROXY_SOURCE_URL_QUERY_SEPARATOR"]
        if let path = reader.text("IMGPROXY_HEALTH_CHECK_PATH") {
            // imgproxy's reading: no query or fragment, a leading slash, no trailing one.
            var trimmed = String(path.prefix { $0 != "?" && $0 != "#" })
            while trimmed.hasSuffix("/") { trimmed.removeLast() }
            if !trimmed.isEmpty { healthCheckPath = trimmed.hasPrefix("/") ? trimmed : "/" + trimmed }
        }
        pathPrefix = try Self.pathPrefix(reader)
        pathRules = try Self.pathRules(reader)
        allowOrigin = reader.text("IMGPROXY_ALLOW_ORIGIN")
        setsCanonicalHeader = try reader.boolean("IMGPROXY_SET_CANONICAL_HEADER")
        sendsDebugHeaders = try reader.boolean("IMGPROXY_ENABLE_DEBUG_HEADERS")
        sendsErrorDetails = try reader.boolean("IMGPROXY_DEVELOPMENT_ERRORS_MODE")
        readsClientHints = try reader.boolean("IMGPROXY_ENABLE_CLIENT_HINTS")
        usesLinearLight = try reader.boolean("IMGPROXY_USE_LINEAR_COLORSPACE")
        disablesShrinkOnLoad = try reader.boolean("IMGPROXY_DISABLE_SHRINK_ON_LOAD")
        secret = reader.environment["IMGPROXY_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
        cacheControlPassthrough = try reader.boolean("IMGPROXY_CACHE_CONTROL_PASSTHROUGH")
        usesLastModified = try reader.boolean("IMGPROXY_USE_LAST_MODIFIED")
        if let text = reader.text("IMGPROXY_LAST_MODIFIED_BUSTER") {
            guard let date = Self.rfc3339(text) else {
                throw ServeEnvironmentError(
                    variable: "IMGPROXY_LAST_MODIFIED_BUSTER",
                    message: "takes an RFC 3339 date and time such as 2026-11-03T10:00:00Z, not \"\(text)\"")
            }
            lastModifiedBuster = date
        }
        enforcesAVIF = try reader.boolean("IMGPROXY_ENFORCE_AVIF")
        enforcesJXL = try reader.boolean("IMGPROXY_ENFORCE_JXL")
        negotiatesJXL = try reader.boolean("IMGPROXY_AUTO_JXL")
        enforcesWebP = try reader.boolean("IMGPROXY_ENFORCE_WEBP")
        enforcesThumbnail = try reader.boolean("IMGPROXY_ENFORCE_THUMBNAIL")
        s3 = try Self.s3(reader)
        fallbackImage = try Self.fallbackImage(reader)
        watermark = try Self.watermark(reader)
        watermarkOpacity = try Self.watermarkOpacity(reader)
        animationLimits = try AnimationLimits(environment)
        encoders = try Encoders(reader)
        observability = try Observability(reader)
        if let text = reader.text("IMGPROXY_SKIP_PROCESSING_FORMATS") {
            skipProcessingFormats = try Self.skipProcessingFormats(text)
        }
    }

    /// `jpeg=80,webp=79`: qualities by format name, as fractions.
    /// The presets of `IMGPROXY_PRESETS_PATH`, as imgproxy reads that file: one `name=options` a
    /// line; blank lines and lines starting with `#` skipped. They come after `IMGPROXY_PRESETS`.
    static func presetsFile(at path: String) throws(ServeEnvironmentError) -> [String] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ServeEnvironmentError(variable: "IMGPROXY_PRESETS_PATH", message: "names \(path), which cannot be read as UTF-8 text")
        }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    private static func formatQualities(_ text: String) throws(ServeEnvironmentError) -> [String: Double] {
        var qualities: [String: Double] = [:]
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let names = ["jpg": "jpeg", "jpeg": "jpeg", "png": "png", "webp": "webp", "avif": "avif", "jxl": "jxl"]
            guard parts.count == 2, let name = names[parts[0].lowercased()], let value = Int(parts[1]), (1...100).contains(value) else {
                throw ServeEnvironmentError(
                    variable: "IMGPROXY_FORMAT_QUALITY",
                    message: "takes FORMAT=QUALITY pairs (jpeg, png, webp, avif or jxl; 1 to 100) joined by commas, not \"\(item)\"")
            }
            qualities[name] = Double(value) / 100
        }
        return qualities
    }

    /// Reads variables with imgproxy's spellings: an empty value is unset, as in imgproxy.
    struct Reader {
        var environment: [String: String]

        func text(_ name: String) -> String? {
            guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            return value
        }

        func integer(_ name: String, in range: ClosedRange<Int>) throws(ServeEnvironmentError) -> Int? {
            guard let value = text(name) else { return nil }
            guard let number = Int(value), range.contains(number) else {
                throw ServeEnvironmentError(
                    variable: name, message: "takes a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(value)\"")
            }
            return number
        }

        func number(_ name: String, in range: ClosedRange<Double>) throws(ServeEnvironmentError) -> Double? {
            guard let value = text(name) else { return nil }
            guard let number = Double(value), number.isFinite, range.contains(number) else {
                throw ServeEnvironmentError(variable: name, message: "takes a positive number, not \"\(value)\"")
            }
            return number
        }

        /// Go's `strconv.ParseBool` spellings, as imgproxy reads booleans.
        func boolean(_ name: String) throws(ServeEnvironmentError) -> Bool? {
            guard let value = text(name) else { return nil }
            switch value {
            case "1", "t", "T", "true", "TRUE", "True": return true
            case "0", "f", "F", "false", "FALSE", "False": return false
            default: throw ServeEnvironmentError(variable: name, message: "takes true or false, not \"\(value)\"")
            }
        }
    }
}

extension ServeEnvironment {
    /// Sets the source rules `IMGPROXY_ALLOWED_SOURCES` and the three
    /// `IMGPROXY_ALLOW_…_SOURCE_ADDRESSES` switches name in `policy` (each unset switch is left as
    /// it is: `--allow-private-networks` opens every kind whatever they say).
    package func apply(to policy: inout SourcePolicy) {
        if !allowedSources.isEmpty { policy.allowedSources = allowedSources }
        if let allowsLoopbackSourceAddresses { policy.allowsLoopbackAddresses = allowsLoopbackSourceAddresses }
        if let allowsPrivateSourceAddresses { policy.allowsPrivateAddresses = allowsPrivateSourceAddresses }
        if let allowsLinkLocalSourceAddresses { policy.allowsLinkLocalAddresses = allowsLinkLocalSourceAddresses }
    }

    /// Sets what has no flag of its own in `configuration`: the source limits, the qualities, the
    /// download's timeout and user agent, and the `Cache-Control` passthrough.
    package func apply(to configuration: inout ImageProxyConfiguration) throws(ServeEnvironmentError) {
        if let maximumSourcePixels { configuration.decodingLimits.maximumSourcePixelCount = maximumSourcePixels }
        if let maximumSourceBytes { configuration.loaderConfiguration.maximumBodySize = maximumSourceBytes }
        if let quality { configuration.defaultQuality = quality }
        if let stripsMetadata { configuration.stripsMetadata = stripsMetadata }
        if let keepsCopyright { configuration.keepsCopyright = keepsCopyright }
        let formats: [String: ImageFormat] = ["jpeg": .jpeg, "png": .png, "webp": .webp, "avif": .avif, "jxl": .jxl]
        for (name, quality) in formatQualities {
            if let format = formats[name] { configuration.formatQualities[format] = quality }
        }
        if let downloadTimeout { configuration.loaderConfiguration.downloadTimeout = .seconds(downloadTimeout) }
        if let userAgent { configuration.loaderConfiguration.userAgent = userAgent }
        if let cacheControlPassthrough { configuration.passesCacheControlThrough = cacheControlPassthrough }
        if let usesLastModified { configuration.usesLastModified = usesLastModified }
        if let lastModifiedBuster { configuration.lastModifiedBuster = lastModifiedBuster }
        if let enforcesAVIF { configuration.enforcesAVIF = enforcesAVIF }
        if let enforcesJXL { configuration.enforcesJXL = enforcesJXL }
        if let negotiatesJXL { configuration.negotiatesJXL = negotiatesJXL }
        if let enforcesWebP { configuration.enforcesWebP = enforcesWebP }
        if let enforcesThumbnail { configuration.enforcesThumbnail = enforcesThumbnail }
        if let preferredFormats { configuration.preferredFormats = preferredFormats }
        if let pathRules { configuration.pathRules = pathRules }
        if let setsCanonicalHeader { configuration.setsCanonicalHeader = setsCanonicalHeader }
        if let sendsDebugHeaders { configuration.sendsDebugHeaders = sendsDebugHeaders }
        if let sendsErrorDetails { configuration.sendsErrorDetails = sendsErrorDetails }
        if let readsClientHints { configuration.readsClientHints = readsClientHints }
        if let usesLinearLight { configuration.usesLinearLight = usesLinearLight }
        if let disablesShrinkOnLoad { configuration.shrinksOnLoad = !disablesShrinkOnLoad }
        if let s3 { configuration.s3 = s3 }
        if let sourceURLQuerySeparator { configuration.sourceURLQuerySeparator = sourceURLQuerySeparator }
        if let fallbackImage { configuration.fallbackImage = fallbackImage }
        if let watermark { configuration.watermark = watermark }
        if let watermarkOpacity { configuration.watermarkOpacity = watermarkOpacity }
        animationLimits.apply(to: &configuration)
        encoders.apply(to: &configuration)
        if let skipProcessingFormats { configuration.skipProcessingFormats = skipProcessingFormats }
    }
}
#endif
