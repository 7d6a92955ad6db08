#if os(Linux)
import Foundation
import Imago
import Logging

/// How the proxy behaves; every field has a documented default.
public struct ImageProxyConfiguration: Sendable {
    /// Checks signatures; `nil` accepts unsigned paths (`--allow-unsigned`, local development
    /// only). Default: `nil`.
    public var signer: URLSigner?
    /// Which sources may be fetched. Default: any public http(s) host.
    public var sourcePolicy: SourcePolicy
    /// Longest side of an output image, in pixels (after the ratio). Default: 4,096.
    public var maximumOutputDimension: Int
    /// Quality of lossy output when the URL gives none, 0 (smallest) to 1 (best), as for every
    /// quality in Imago (a URL's `q:80` is 0.8). Default: 0.8.
    public var defaultQuality: Double
    /// `max-age` of signed responses, in seconds. Default: one year (31,536,000): a signed URL
    /// names its result for good.
    public var signedMaxAge: Int
    /// `max-age` of unsigned responses, in seconds. Default: 3,600.
    public var unsignedMaxAge: Int
    /// Requests processed at once. Default: 2 times the processor count.
    public var maximumConcurrentRequests: Int
    /// Requests that may wait for a slot; beyond, 429 with `Retry-After` (as imgproxy answers
    /// when its queue is full). Default: 64.
    public var maximumQueuedRequests: Int
    /// `Retry-After` of a shed request, in seconds. Default: 1.
    public var retryAfterSeconds: Int
    /// Bytes of encoded responses kept in memory (the response tier, before the pipeline's
    /// memory cache of decoded images). Default: 128 MiB.
    public var responseCacheBytes: Int
    /// The pipeline's decoding limits (pixels, frames). Default: ``DecodingLimits/init()``.
    public var decodingLimits: DecodingLimits
    /// The pipeline's download limits (bytes, timeouts). Default: 20 MiB bodies, 10 s to
    /// connect, 30 s in all.
    public var loaderConfiguration: DataLoader.Configuration
    /// Where access and start-up lines go. Default: a logger labelled `imago.serve`.
    public var logger: Logger
    /// Whether outputs are converted to sRGB and written without a colour profile, unless a URL
    /// says `scp:0` (imgproxy's `IMGPROXY_STRIP_COLOR_PROFILE`); `false` keeps each source's pixels
    /// and profile unless a URL says `scp:1`. Default: `true`, as imgproxy and browsers expect.
    public var stripsColorProfile: Bool = true
    /// Whether outputs leave out the source's EXIF, XMP and IPTC when a URL says nothing (`sm`),
    /// keeping only its authorship when ``keepsCopyright`` says so (imgproxy's
    /// `IMGPROXY_STRIP_METADATA`); `false` writes all of it into JPEG, PNG and WebP output
    /// (EXIF's orientation as 1, since the pixels are turned upright). Default: `true`.
    public var stripsMetadata: Bool = true
    /// Whether stripping metadata keeps the source's copyright and authorship when a URL says
    /// nothing (`kcr`): EXIF `Copyright` and `Artist`, IPTC 2:80, 2:110 and 2:116, XMP's `dc`
    /// rights, creator, contributor and publisher and its `xmpRights` and `cc` namespaces
    /// (imgproxy's `IMGPROXY_KEEP_COPYRIGHT`). Default: `true`, as imgproxy.
    public var keepsCopyright: Bool = true
    /// The presets paths may name (`pr:NAME`), and whether paths name presets only
    /// (`--preset NAME=OPTIONS`, `--only-presets`). Default: none.
    public var presets: ProcessingPresets = .none
    /// Whether paths may set the security options `max_src_resolution` and `max_src_file_size`
    /// (imgproxy's `IMGPROXY_ALLOW_SECURITY_OPTIONS`); they can only lower the server's own
    /// limits. Refused with 403 `forbidden_option` when `false`. Default: `false`.
    public var allowsSecurityOptions: Bool = false
    /// The most frames of an animated source processed, its first ones, when a URL says nothing
    /// (`maf`): more than 1 keeps GIF, WebP and AVIF-sequence sources animated in GIF and WebP
    /// output, each frame with the same geometry (imgproxy's `IMGPROXY_MAX_ANIMATION_FRAMES`).
    /// Default: 1, as imgproxy: the first frame only.
    public var maximumAnimationFrames: Int = 1
    /// The most pixels of one frame of an animation processed with more than one frame, when a
    /// URL says nothing (`mafr`); `nil`: the frames together count against the source resolution
    /// limit (imgproxy's `IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION`, whose 0 is `nil`). Default: `nil`.
    public var maximumAnimationFramePixels: Int?
    /// Bytes of decoded sources kept in memory so that later sizes of a source are made without
    /// decoding it again (the `decoded` tier; 0 turns it off). Default: 256 MiB.
    public var decodedSourceBytes: Int = 256 * 1024 * 1024
    /// The largest share of ``decodedSourceBytes`` one decoded source may take; a larger decode is
    /// kept reduced to the largest size its requests asked for, or not at all
    /// (``ImagePipeline/Configuration/decodedOriginalsEntryFraction``). Default: 0.25.
    public var decodedSourceEntryFraction: Double = 0.25
    /// Bytes of pixels that decodes under way may hold together; later decodes wait
    /// (``ImagePipeline/Configuration/maximumDecodingBytes``). Default: 512 MiB.
    public var decodingBytes: Int = 512 * 1024 * 1024
    /// Decoders registered on the proxy's pipeline, before the built-in ones: a format of your own
    /// (recognised by ``ImageDecoding/recognizeFormat(of:)``) is served like any other source.
    /// Default: none.
    public var decoders: [any ImageDecoding] = []
    /// Qualities of lossy output by format, 0 to 1, for URLs that give none; a format not named
    /// here uses ``defaultQuality`` (imgproxy's `IMGPROXY_FORMAT_QUALITY`). Default: JPEG XL at
    /// 0.77, imgproxy's `jxl=77`.
    public var formatQualities: [ImageFormat: Double] = [.jxl: 0.77]
    /// The folder `local:///path` sources are read from (imgproxy's
    /// `IMGPROXY_LOCAL_FILESYSTEM_ROOT`); a path never leads out of it (``LocalFileDataLoader``).
    /// `nil`: `local:` sources are answered 404, as imgproxy does without a root. Default: `nil`.
    public var localFilesystemRoot: String? = nil
    /// Where `s3://bucket/key` sources are fetched from, and with which credentials (imgproxy's
    /// `IMGPROXY_USE_S3` and `IMGPROXY_S3_*`; ``S3DataLoader``). `nil`: `s3:` sources are
    /// answered 404, as imgproxy does without S3. Default: `nil`.
    public var s3: S3Configuration? = nil
    /// Where a `local://` or `s3://` source's path (or key) ends and its query begins (imgproxy's
    /// `IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`): an `s3://` key's version follows it, a `local://`
    /// path's query is ignored. `?` is the URL's own query; another text cuts the decoded path
    /// and query at its first occurrence; empty: none, a `?` and what follows belong to the path
    /// or key. Default: `?`.
    public var sourceURLQuerySeparator = "?"
    /// Whether responses carry their source's `Last-Modified` and answer `304 Not Modified` to an
    /// `If-Modified-Since` no older than it (imgproxy's `IMGPROXY_USE_LAST_MODIFIED`); an
    /// `If-None-Match` takes precedence, and an `If-Modified-Since` that is not an HTTP date is
    /// ignored. The date is the http source's header or the local file's modification time.
    /// Default: `false`, as imgproxy.
    public var usesLastModified = false
    /// Whether the client hints `Sec-CH-DPR` (else `DPR`, a ratio above 0 and at most 8) and
    /// `Sec-CH-Width` (else `Width`, device pixels) set the ratio and the width (the hint's
    /// width divided by the ratio) that the path does not (imgproxy's
    /// `IMGPROXY_ENABLE_CLIENT_HINTS`); responses then say `Vary` on those four headers. A page
    /// must ask browsers for the hints (`Accept-CH`). Default: `false`.
    public var readsClientHints = false
    /// With ``usesLastModified``, the earliest `Last-Modified` sent (imgproxy's
    /// `IMGPROXY_LAST_MODIFIED_BUSTER`): a source's older date gives way to it, so clients'
    /// copies from before it are made again. `nil`: none. Default: `nil`.
    public var lastModifiedBuster: Date? = nil
    /// The image answered when a source cannot be fetched or decoded, with its status and TTL
    /// (imgproxy's `IMGPROXY_FALLBACK_IMAGE_*`; ``FallbackImage``). `nil`: the failure is
    /// answered, unless the path names a fallback (`fiu`). Default: `nil`.
    public var fallbackImage: FallbackImage? = nil
    /// The image a path's `watermark` (`wm`) lays over its result (imgproxy's
    /// `IMGPROXY_WATERMARK_DATA`, `_PATH` or `_URL`; ``WatermarkImage``). `nil`: `wm` changes
    /// nothing unless the path names an image (`wmu`), as imgproxy ignores it. Default: `nil`.
    public var watermark: WatermarkImage? = nil
    /// Multiplies the opacity of every watermark, in (0, 1] (imgproxy's
    /// `IMGPROXY_WATERMARK_OPACITY`). Default: 1.
    public var watermarkOpacity: Double = 1
    /// Whether a response's `Cache-Control` follows its source's (imgproxy's
    /// `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`): `max-age` is what is left of the source's freshness
    /// (never more than the proxy's own), and a source that may not be stored gives `no-store`.
    /// Default: `false`, the proxy's own `max-age` whatever the source said.
    public var passesCacheControlThrough: Bool = false
    /// Whether a client whose `Accept` names `image/avif` gets AVIF whatever format the path asks
    /// (imgproxy's `IMGPROXY_ENFORCE_AVIF`; responses then vary with `Accept`). Default: `false`.
    public var enforcesAVIF: Bool = false
    /// Whether a client whose `Accept` names `image/webp` gets WebP whatever format the path asks,
    /// unless AVIF is enforced and taken (imgproxy's `IMGPROXY_ENFORCE_WEBP`). Default: `false`.
    public var enforcesWebP: Bool = false
    /// Whether a HEIF or AVIF source with an embedded thumbnail is processed from that thumbnail
    /// rather than its primary image, unless a URL says `eth:0` (imgproxy's
    /// `IMGPROXY_ENFORCE_THUMBNAIL`; see `ImageRequest.prefersEmbeddedThumbnail`). Default: `false`.
    public var enforcesThumbnail: Bool = false
    /// Whether `f:auto` answers JPEG XL to a client whose `Accept` names `image/jxl`, before AVIF
    /// and WebP (imgproxy's `IMGPROXY_AUTO_JXL`). Default: `false`, as imgproxy: few browsers
    /// take JPEG XL yet, and it costs more to encode than WebP.
    public var negotiatesJXL: Bool = false
    /// Whether a client whose `Accept` names `image/jxl` gets JPEG XL whatever format the path
    /// asks, before an enforced AVIF or WebP (imgproxy's `IMGPROXY_ENFORCE_JXL`; responses then
    /// vary with `Accept`). Default: `false`.
    public var enforcesJXL: Bool = false
    /// The formats a response is written in when neither the path nor the client's `Accept`
    /// names one (imgproxy's `IMGPROXY_PREFERRED_FORMATS`): the source's own format when it is
    /// here, else the first here that can carry the output (an animation: GIF or WebP;
    /// transparency: anything but JPEG), else the first. Formats this build cannot write are
    /// passed over. Default: imgproxy's `[.jpeg, .png, .gif]`.
    public var preferredFormats: [ImageFormat] = [.jpeg, .png, .gif]
    /// How paths are read beyond the grammar: the arguments separator, the allowed options, the
    /// source's base URL and rewrites (imgproxy's `IMGPROXY_ARGUMENTS_SEPARATOR`,
    /// `…_ALLOWED_PROCESSING_OPTIONS`, `…_BASE_URL`, `…_URL_REPLACEMENTS`,
    /// `…_BASE64_URL_INCLUDES_FILENAME`). Default: ``ProcessingPath/Rules/init()``, imgproxy's.
    public var pathRules = ProcessingPath.Rules()
    /// Whether a response made from an http(s) source names it as `Link: <URL>; rel="canonical"`
    /// (imgproxy's `IMGPROXY_SET_CANONICAL_HEADER`). Default: `false`.
    public var setsCanonicalHeader = false
    /// Whether a processed response carries `X-Origin-Width`, `X-Origin-Height`, `X-Result-Width`
    /// and `X-Result-Height` (imgproxy's `IMGPROXY_ENABLE_DEBUG_HEADERS`). Default: `false`.
    public var sendsDebugHeaders = false
    /// Whether an error response's JSON carries `detail`, what the server found out beside what
    /// the client is told (the pipeline's whole error: the source's URL, a redirect's hosts, the
    /// connection's failure), as imgproxy's `IMGPROXY_DEVELOPMENT_ERRORS_MODE` shows its errors.
    /// For development only: a detail may name internal hosts and addresses. Default: `false`
    /// (the detail goes to the log alone).
    public var sendsErrorDetails = false
    /// Whether images are resized in linear light (imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE`):
    /// sRGB's curve undone before the filter and redone after (`ImageProcessors.Resize.linearLight`),
    /// so fine detail of light and dark keeps its brightness, for more CPU a resize. As in
    /// imgproxy, what the decoder shrinks on load (JPEG's DCT scaling, the decoded tier's
    /// reductions) is still averaged on the stored values. Default: `false`.
    public var usesLinearLight = false
    /// Whether a source is decoded only at the scale its output needs (JPEG's DCT scaling, the
    /// decoded tier's reductions); `false` decodes every source at full size, as imgproxy's
    /// `IMGPROXY_DISABLE_SHRINK_ON_LOAD` does, so that with ``usesLinearLight`` the whole
    /// reduction is in linear light, for far more CPU and memory a large source. Default: `true`.
    public var shrinksOnLoad = true
    /// How each format is written beyond its quality: progressive JPEG, interlaced or palette PNG,
    /// WebP effort, AVIF speed, JPEG XL effort. Default: ``ProxyEncoderSettings/init()``, imgproxy's.
    public var encoderSettings = ProxyEncoderSettings()
    /// Source formats answered as they came, unprocessed, when the path asks no output format or
    /// the source's own (imgproxy's `IMGPROXY_SKIP_PROCESSING_FORMATS`); a path's `skp` replaces
    /// the list. Default: none.
    public var skipProcessingFormats: [ImageFormat] = []
    /// The time: when a URL's `expires` has passed, and when what was made from a source stops
    /// being fresh. Tests pass a clock of their own. Default: the system's.
    public var now: @Sendable () -> Date = { Date() }

    public init(
        signer: URLSigner? = nil, sourcePolicy: SourcePolicy = SourcePolicy(), maximumOutputDimension: Int = 4096,
        defaultQuality: Double = 0.8, signedMaxAge: Int = 31_536_000, unsignedMaxAge: Int = 3600,
        maximumConcurrentRequests: Int = 2 * ProcessInfo.processInfo.activeProcessorCount, maximumQueuedRequests: Int = 64,
        retryAfterSeconds: Int = 1, responseCacheBytes: Int = 128 * 1024 * 1024, decodingLimits: DecodingLimits = DecodingLimits(),
        loaderConfiguration: DataLoader.Configuration = DataLoader.Configuration(maximumBodySize: 20 * 1024 * 1024, maximumConnections: 16),
        logger: Logger = Logger(label: "imago.serve")
    ) {
        self.signer = signer
        self.sourcePolicy = sourcePolicy
        self.maximumOutputDimension = maximumOutputDimension
        self.defaultQuality = defaultQuality
        self.signedMaxAge = signedMaxAge
        self.unsignedMaxAge = unsignedMaxAge
        self.maximumConcurrentRequests = maximumConcurrentRequests
        self.maximumQueuedRequests = maximumQueuedRequests
        self.retryAfterSeconds = retryAfterSeconds
        self.responseCacheBytes = responseCacheBytes
        self.decodingLimits = decodingLimits
        self.loaderConfiguration = loaderConfiguration
        self.logger = logger
    }
}

#endif
