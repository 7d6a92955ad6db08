import Foundation
import Logging
import Metrics

extension ImagePipeline {
    /// Everything a pipeline is made of. Each field has a default suited to an app that shows
    /// images from the web; change what you need, or start from a preset (``default``,
    /// ``highPerformance``, ``lowMemory``, ``offlineFirst``).
    public struct Configuration: Sendable {
        /// Downloads the bytes. Default: `HTTPClientDataLoader` on Linux (AsyncHTTPClient is several
        /// times faster there than URLSession; Benchmarks/README.md), `URLSessionDataLoader` on
        /// Apple platforms.
        public var dataLoader: any DataLoading
        /// Turns bytes into images: the decoders tried by format, yours before the built-in
        /// decoder. Default: ``ImageDecoderRegistry/init()``, the built-in decoder only
        /// (libjpeg-turbo, libpng, libwebp, libheif, libavif and a GIF decoder on Linux, ImageIO on
        /// Apple). Add a format with `configuration.decoders.register(MyDecoder())`.
        public var decoders: ImageDecoderRegistry
        /// Ceilings checked before decoding. Default: ``DecodingLimits/init()`` (100 megapixels…).
        public var decodingLimits: DecodingLimits
        /// What a complete but damaged file becomes: the picture a browser shows, with its repairs
        /// listed and logged (``DecodingPolicy/lenient``), or an error (``DecodingPolicy/strict``).
        /// Default: `.lenient`.
        public var decodingPolicy: DecodingPolicy
        /// Decoded images, for instant hits. Default: a ``MemoryCache`` with its default limits
        /// (20% of physical memory up to 512 MiB, 1,000 images); `nil` turns it off.
        public var memoryCache: MemoryCache<CacheKey, ImageContainer>?
        /// Downloaded bytes, across launches. Default: `nil`, no disk cache: pass a ``DiskCache``
        /// (for example `try DiskCache(directory: DiskCache.defaultDirectory())`) to keep them.
        public var diskCache: DiskCache?
        /// Extra tiers asked in order after the disk cache and before the network. Default: none.
        public var cacheLayers: [any CacheLayer]
        /// Whether processed images (thumbnails, resized, cropped) are also stored on disk,
        /// encoded as JPEG (opaque) or PNG (with alpha), so the next launch skips decoding the
        /// original. Default: `false`.
        public var storesProcessedImagesOnDisk: Bool
        /// Whether an expired disk entry is served before asking the network (offline first).
        /// Default: `false`: expired entries are revalidated or downloaded again.
        public var servesExpiredEntries: Bool
        /// Whether `ETag`, `Last-Modified` and `Cache-Control` of responses are honoured: `max-age`
        /// sets the entry's lifetime, `no-store` keeps it off the disk, and expired entries are
        /// revalidated with `If-None-Match` / `If-Modified-Since`. Default: `true`.
        public var honoursHTTPCacheHeaders: Bool
        /// Downloads running at once; the rest wait in priority order. Default: 6.
        public var maximumConcurrentDownloads: Int
        /// When a failed download is tried again. Default: ``RetryPolicy/default`` (3 attempts,
        /// 0.5 s base, 10 s cap).
        public var retryPolicy: RetryPolicy
        /// Whether the network is reachable. Default: ``Connectivity/system``.
        public var connectivity: Connectivity
        /// How long a request waits for the network to come back before failing with `offline`;
        /// `nil` never waits (the download is simply tried). Default: `nil`.
        public var waitsForConnectivity: Duration?
        /// Requests at or above this priority are pinned in the memory cache, where LRU never
        /// evicts them. Default: `.veryHigh`; `nil` pins nothing.
        public var pinnedPriority: ImageRequest.Priority?
        /// The clock for retry back-off and connectivity waits. Default: `ContinuousClock()`;
        /// tests inject a manual one.
        public var clock: any Clock<Duration>
        /// Where the pipeline logs. Default: a logger labelled `imago` that discards everything;
        /// Imago never bootstraps the logging system.
        public var logger: Logger
        /// Whether the pipeline's log messages leave out the parts of URLs that commonly carry
        /// secrets (user, password, query string, fragment; see
        /// `URL.redactedDescription`). Error descriptions always do; call
        /// ``ImagePipeline/Error/description(redactingURLs:)`` for the whole URL. Default: `true`.
        public var redactsURLs: Bool
        /// The prefix of the swift-metrics labels. Default: `imago`.
        public var metricsLabel: String
        /// Makes the swift-metrics instruments. Default: `nil`, the process-wide
        /// `MetricsSystem.factory` (a no-op until the application bootstraps one); Imago never
        /// bootstraps the metrics system.
        public var metricsFactory: (any MetricsFactory)?
        /// The most disk writes that may wait to run at once; a write beyond it is skipped (and
        /// counted and logged), never waited for, so a slow disk cannot hold the response path or
        /// memory. Default: 64.
        public var maximumPendingDiskWrites: Int = 64
        /// The most bytes that waiting disk writes may keep alive (downloaded bytes, or decoded
        /// pixels of processed variants still to encode); a write beyond it is skipped like one
        /// over ``maximumPendingDiskWrites``. Default: 64 MiB.
        public var maximumPendingDiskWriteBytes: Int = 64 * 1024 * 1024

        /// Called before every download attempt, retries included, inside the download's slot,
        /// with the request about to go out (URL, headers, and any `If-None-Match` of a
        /// revalidation); what it returns is sent instead, by whichever ``dataLoader``. Use it
        /// for what must be fresh at the moment of sending, such as an authorization token.
        /// Never called for cache hits. Default: `nil`, requests go out as made.
        public var requestModifier: ImagePipeline.RequestModifier? = nil

        /// What arrived of downloads that stopped early (a cut connection, a stall, the last
        /// caller cancelling), kept so that the next attempt or request for the same URL asks only
        /// for the rest with `Range` and `If-Range` (see ``ResumableDataStore`` for what can be
        /// resumed). Needs a ``dataLoader`` that implements ``DataLoading/loadData(for:observer:)``,
        /// as both shipped loaders do. Default: a store of at most 32 downloads and 32 MiB; `nil`
        /// never resumes.
        public var resumableData: ResumableDataStore? = ResumableDataStore()

        /// Whether images show previews while they download: each time more scans of a
        /// progressive JPEG have arrived, they are decoded (libjpeg-turbo's buffered-image mode on
        /// Linux, ImageIO's incremental source on Apple platforms) and processed as the request
        /// asks, and handed out as ``PipelineEvent/preview(_:_:)`` on the ``ImageTask``'s events
        /// (ImagoUI's `ImageLoader` shows them as a phase). At most one preview decodes at a
        /// time per image, at the final decode's scale (never larger); previews are never cached.
        /// Baseline JPEG, PNG (interlaced or not), GIF, WebP, HEIF and AVIF are not previewed, nor
        /// is JPEG when a decoder of your own handles it. ``ImageRequest/decodesPreviews``
        /// overrides it per request. Default: `false`.
        public var decodesPreviews = false
        /// Bytes of decoded originals kept in memory: what shrink-on-load made of a source (at
        /// 1/8, 1/4, 1/2 or full size, colour handled, before any processing), keyed by the
        /// original key, the colour handling and the reduction. Processed requests of one source
        /// (the sizes of a `srcset`, other processor chains) are made from it, so a source is
        /// downloaded and decoded once for all of them. An entry lives as long as its source is
        /// fresh, is never kept for a `no-store` source, and goes when the source's bytes change.
        /// Requests with no processing (their image is the memory cache's) do not use it; requests
        /// made together still share one decode when it is off. Default: 0, off: an app's decoded
        /// memory is its memory cache's, as it configured it (``highPerformance`` keeps 64 MiB, and
        /// the image proxy sets its own).
        public var decodedOriginalsBytes = 0
        /// The largest share of ``decodedOriginalsBytes`` one entry may take, so that one large
        /// source cannot empty the tier: a decode over it is kept reduced to the largest size its
        /// requests asked for (if that fits), or not at all. Default: 0.25.
        public var decodedOriginalsEntryFraction = 0.25
        /// Bytes of pixels that decodes under way may hold together, estimated from each
        /// source's header at the scale it is decoded at (sources that cannot be reduced on
        /// load, HEIF and AVIF, at full size). A decode that would pass it waits until others
        /// finish; one larger than the whole budget runs alone, when no other decode runs, so a
        /// burst of large sources is decoded one after another instead of at once. Default:
        /// 512 MiB.
        public var maximumDecodingBytes = 512 * 1024 * 1024
        /// The wall clock that the freshness of decoded originals (``decodedOriginalsBytes``) and
        /// ``ImageResponse/expiresAt`` are read against. Tests pass a clock of their own.
        /// Default: the system's (`Date()`).
        public var now: @Sendable () -> Date = { Date() }
        /// URL schemes besides `http` and `https` that ``dataLoader`` serves (lowercase), such as
        /// the image proxy's `local` for files under its root; any other scheme fails with
        /// ``ImagePipeline/Error/unsupportedScheme(_:)`` before the loader is asked. Default: none.
        public var additionalSchemes: Set<String> = []

        /// A configuration with every default but what is given.
        public init(
            dataLoader: (any DataLoading)? = nil,
            decoders: ImageDecoderRegistry = ImageDecoderRegistry(),
            decodingLimits: DecodingLimits = DecodingLimits(),
            decodingPolicy: DecodingPolicy = .lenient,
            memoryCache: MemoryCache<CacheKey, ImageContainer>? = MemoryCache(),
            diskCache: DiskCache? = nil,
            cacheLayers: [any CacheLayer] = [],
            storesProcessedImagesOnDisk: Bool = false,
            servesExpiredEntries: Bool = false,
            honoursHTTPCacheHeaders: Bool = true,
            maximumConcurrentDownloads: Int = 6,
            retryPolicy: RetryPolicy = .default,
            connectivity: Connectivity = .system,
            waitsForConnectivity: Duration? = nil,
            pinnedPriority: ImageRequest.Priority? = .veryHigh,
            clock: any Clock<Duration> = ContinuousClock(),
            logger: Logger = Logger(label: "imago", factory: { _ in SwiftLogNoOpLogHandler() }),
            metricsLabel: String = "imago",
            metricsFactory: (any MetricsFactory)? = nil,
            redactsURLs: Bool = true
        ) {
            precondition(maximumConcurrentDownloads >= 1, "maximumConcurrentDownloads must be at least 1")
            self.dataLoader = dataLoader ?? Self.makeDefaultDataLoader(
                configuration: DataLoader.Configuration(maximumConnections: maximumConcurrentDownloads))
            self.decoders = decoders
            self.decodingLimits = decodingLimits
            self.decodingPolicy = decodingPolicy
            self.memoryCache = memoryCache
            self.diskCache = diskCache
            self.cacheLayers = cacheLayers
            self.storesProcessedImagesOnDisk = storesProcessedImagesOnDisk
            self.servesExpiredEntries = servesExpiredEntries
            self.honoursHTTPCacheHeaders = honoursHTTPCacheHeaders
            self.maximumConcurrentDownloads = maximumConcurrentDownloads
            self.retryPolicy = retryPolicy
            self.connectivity = connectivity
            self.waitsForConnectivity = waitsForConnectivity
            self.pinnedPriority = pinnedPriority
            self.clock = clock
            self.logger = logger
            self.metricsLabel = metricsLabel
            self.metricsFactory = metricsFactory
            self.redactsURLs = redactsURLs
        }

        /// `url` as the logs show it, redacted unless ``redactsURLs`` is off.
        func logged(_ url: URL) -> String { url.description(redacting: redactsURLs) }

        /// `error` as the logs show it, its URL redacted unless ``redactsURLs`` is off.
        func logged(_ error: ImagePipeline.Error) -> String { error.description(redactingURLs: redactsURLs) }

        /// The platform's default loader: `HTTPClientDataLoader` on Linux, `URLSessionDataLoader`
        /// on Apple platforms.
        public static func makeDefaultDataLoader(
            configuration: DataLoader.Configuration = DataLoader.Configuration()
        ) -> any DataLoading {
            #if os(Linux)
            HTTPClientDataLoader(configuration: configuration)
            #else
            URLSessionDataLoader(configuration: configuration)
            #endif
        }
    }
}
