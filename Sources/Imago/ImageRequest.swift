import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What to load and how: a URL (with optional headers), the processing to apply, the cache policy
/// and the priority.
///
/// A value type whose fields live in one reference, copied when a shared request is changed: a
/// request passed, stored or read out of an array costs one retain, not one per field (URL,
/// headers, processors, keys…), which makes a memory-cache hit (``ImagePipeline/cache``) about
/// 40% cheaper than a copy per field (Benchmarks/README.md).
public struct ImageRequest: Sendable {
    /// The image's http or https URL.
    public var url: URL {
        get { storage.url }
        set { change { $0.url = newValue } }
    }
    /// Extra HTTP headers sent with the download. They do not take part in the cache key.
    public var headers: [String: String] {
        get { storage.headers }
        set { change(keys: false) { $0.headers = newValue } }
    }
    /// Names of ``headers`` that are credentials (API keys, signed tokens), dropped when a
    /// redirect leads to another origin. `Authorization`, `Proxy-Authorization` and `Cookie`
    /// always are. Default: none.
    public var credentialHeaderNames: Set<String> {
        get { storage.credentialHeaderNames }
        set { change(keys: false) { $0.credentialHeaderNames = newValue } }
    }
    /// When set, a thumbnail: the image is scaled down so its longer side is at most this many
    /// pixels, and decoded at a reduced scale (shrink-on-load) so the full-size image is never
    /// held. The one way to ask for a thumbnail: the name Imago gives "the longest side I need", as ImageIO's
    /// `kCGImageSourceThumbnailMaxPixelSize` does. Default: `nil`.
    public var maximumPixelSize: Int? {
        get { storage.maximumPixelSize }
        set { change { $0.maximumPixelSize = newValue } }
    }
    /// Processors applied in order after decoding (and after the thumbnail).
    public var processors: [any ImageProcessing] {
        get { storage.processors }
        set { change { $0.processors = newValue } }
    }
    /// Which caches to read and write, and whether the network may be used.
    public var cachePolicy: CachePolicy {
        get { storage.cachePolicy }
        set { change(keys: false) { $0.cachePolicy = newValue } }
    }
    /// The download's place in the queue; see ``ImageRequest/Priority``.
    public var priority: Priority {
        get { storage.priority }
        set { change(keys: false) { $0.priority = newValue } }
    }
    /// Whether this request shows previews while its image downloads (see
    /// ``ImagePipeline/Configuration/decodesPreviews``); `nil` follows the pipeline's setting. Not
    /// part of the cache key: a request that joins a load under way gets the previews that load
    /// makes, as its first request decided. Default: `nil`.
    public var decodesPreviews: Bool? {
        get { storage.decodesPreviews }
        set { change(keys: false) { $0.decodesPreviews = newValue } }
    }
    /// What to do with the colour profile the image declares: convert the pixels to sRGB through it
    /// (the default, as browsers show it) or keep them as stored, with the profile in
    /// ``ImageContainer/colorProfile`` and written back by the encoders. Kept images are cached
    /// apart from converted ones.
    public var colorProfileHandling: ColorProfileHandling {
        get { storage.colorProfileHandling }
        set { change { $0.colorProfileHandling = newValue } }
    }
    /// The most bytes the source may have, below the loader's own limit: the loader refuses a
    /// larger body from its `Content-Length` and stops one that grows past it while streaming,
    /// and the pipeline refuses bytes from disk or a cache layer over it, with
    /// ``ImagePipeline/Error/sourceTooLarge(_:_:)``. Not part of the cache key. Default: `nil`
    /// (only the loader's ``DataLoader/Configuration/maximumBodySize``).
    public var maximumSourceByteCount: Int? {
        get { storage.maximumSourceByteCount }
        set { change(keys: false) { $0.maximumSourceByteCount = newValue } }
    }
    /// The most pixels (width x height, after the EXIF orientation) the source may have, below
    /// ``ImagePipeline/Configuration/decodingLimits``: checked against the header before any
    /// decode (and against a kept decode's source), with
    /// ``ImagePipeline/Error/sourceTooLarge(_:_:)``. Not part of the cache key. Default: `nil`.
    public var maximumSourcePixelCount: Int? {
        get { storage.maximumSourcePixelCount }
        set { change(keys: false) { $0.maximumSourcePixelCount = newValue } }
    }
    /// The most frames of an animated source decoded and processed: its first n, the rest never
    /// read (imgproxy's `max_animation_frames`); 1 makes any animation its first frame. Part of
    /// the cache key. With it, ``maximumSourcePixelCount`` counts the pixels of every frame
    /// decoded, as imgproxy does. Default: `nil` (every frame, within the pipeline's
    /// ``DecodingLimits``).
    public var maximumAnimationFrames: Int? {
        get { storage.maximumAnimationFrames }
        set { change { $0.maximumAnimationFrames = newValue.map { max(1, $0) } } }
    }
    /// The most pixels one frame of an animation of more than one decoded frame may have: set, it
    /// replaces the count of all frames' pixels against ``maximumSourcePixelCount`` (imgproxy's
    /// `max_animation_frame_resolution`). Checked before decoding, from the frames the container
    /// declares; refused with ``ImagePipeline/Error/sourceTooLarge(_:_:)``. Not part of the cache
    /// key. Default: `nil`.
    public var maximumAnimationFramePixels: Int? {
        get { storage.maximumAnimationFramePixels }
        set { change(keys: false) { $0.maximumAnimationFramePixels = newValue } }
    }
    /// Whether the image is the largest thumbnail embedded in the source, when it has one, rather
    /// than its primary image (imgproxy's `enforce_thumbnail`): a HEIF or AVIF file's thumbnail
    /// item, read with libheif on Linux (ImageIO on Apple platforms decodes the primary image). A
    /// source without a thumbnail gives its primary image. The request's source limits still apply
    /// to the primary image's declared size. Part of the cache key, since the pixels differ.
    /// Default: `false`.
    public var prefersEmbeddedThumbnail: Bool {
        get { storage.prefersEmbeddedThumbnail }
        set { change { $0.prefersEmbeddedThumbnail = newValue } }
    }
    /// Whether the source's EXIF, XMP and IPTC blocks are read from its bytes and carried with the
    /// decoded image (`ImageContainer.metadata`), for an encoder to write them back (the image
    /// proxy's `strip_metadata` and `keep_copyright`). Part of the cache keys, so images with and
    /// without them never share an entry; a request that reads them never stores or reads a
    /// processed variant on disk (that copy would have lost them). Default: `false`.
    package var readsMetadata: Bool {
        get { storage.readsMetadata }
        set { change { $0.readsMetadata = newValue } }
    }
    /// Replaces the URL in the cache key, for URLs that carry changing tokens.
    public var cacheKeyOverride: String? {
        get { storage.cacheKeyOverride }
        set { change { $0.cacheKeyOverride = newValue } }
    }

    private var storage: Storage

    /// A request for `url`.
    public init(
        url: URL, headers: [String: String] = [:], maximumPixelSize: Int? = nil,
        processors: [any ImageProcessing] = [], cachePolicy: CachePolicy = .useCache,
        priority: Priority = .normal, cacheKeyOverride: String? = nil,
        colorProfileHandling: ColorProfileHandling = .convertToSRGB
    ) {
        storage = Storage(
            url: url, headers: headers, maximumPixelSize: maximumPixelSize, processors: processors,
            cachePolicy: cachePolicy, priority: priority, cacheKeyOverride: cacheKeyOverride,
            colorProfileHandling: colorProfileHandling)
    }

    /// A request for the URL and headers of `urlRequest`.
    public init(
        urlRequest: URLRequest, maximumPixelSize: Int? = nil, processors: [any ImageProcessing] = [],
        cachePolicy: CachePolicy = .useCache, priority: Priority = .normal
    ) {
        self.init(
            url: urlRequest.url ?? URL(string: "about:blank")!,
            headers: urlRequest.allHTTPHeaderFields ?? [:], maximumPixelSize: maximumPixelSize,
            processors: processors, cachePolicy: cachePolicy, priority: priority)
    }

    /// Changes the fields through `body`, on storage of this request's own (copied first when
    /// another request shares it); rebuilds the cache keys when a field they depend on changed.
    private mutating func change(keys: Bool = true, _ body: (Storage) -> Void) {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        body(storage)
        if keys { storage.keys = CacheKeys(storage) }
    }

    /// The fields of a request. Mutated only through ``change(keys:_:)``, on an instance no other
    /// request holds, so sharing it between threads is safe.
    private final class Storage: @unchecked Sendable {
        /// ``originalKey`` and ``processedKey``, built when the request is made and rebuilt
        /// whenever a field they depend on changes, so a cache lookup builds no string. First,
        /// beside ``cachePolicy``: a memory-cache hit reads only these two, from one cache line
        /// (behind the other fields, they took a second miss per hit of a request not in cache).
        var keys = CacheKeys.empty
        var cachePolicy: CachePolicy
        var url: URL
        var headers: [String: String]
        var credentialHeaderNames: Set<String> = []
        var maximumPixelSize: Int?
        var processors: [any ImageProcessing]
        var priority: Priority
        var decodesPreviews: Bool?
        var colorProfileHandling: ColorProfileHandling
        var cacheKeyOverride: String?
        var maximumSourceByteCount: Int?
        var maximumSourcePixelCount: Int?
        var maximumAnimationFrames: Int?
        var maximumAnimationFramePixels: Int?
        var prefersEmbeddedThumbnail = false
        var readsMetadata = false

        init(
            url: URL, headers: [String: String], maximumPixelSize: Int?, processors: [any ImageProcessing],
            cachePolicy: CachePolicy, priority: Priority, cacheKeyOverride: String?, colorProfileHandling: ColorProfileHandling
        ) {
            self.url = url
            self.headers = headers
            self.maximumPixelSize = maximumPixelSize
            self.processors = processors
            self.cachePolicy = cachePolicy
            self.priority = priority
            self.cacheKeyOverride = cacheKeyOverride
            self.colorProfileHandling = colorProfileHandling
            keys = CacheKeys(self)
        }

        func copy() -> Storage {
            let copy = Storage(
                url: url, headers: headers, maximumPixelSize: maximumPixelSize, processors: processors,
                cachePolicy: cachePolicy, priority: priority, cacheKeyOverride: cacheKeyOverride,
                colorProfileHandling: colorProfileHandling)
            copy.credentialHeaderNames = credentialHeaderNames
            copy.decodesPreviews = decodesPreviews
            copy.maximumSourceByteCount = maximumSourceByteCount
            copy.maximumSourcePixelCount = maximumSourcePixelCount
            copy.maximumAnimationFrames = maximumAnimationFrames
            copy.maximumAnimationFramePixels = maximumAnimationFramePixels
            copy.prefersEmbeddedThumbnail = prefersEmbeddedThumbnail
            copy.readsMetadata = readsMetadata
            return copy
        }
    }

    /// Key of the downloaded bytes: the URL (or ``cacheKeyOverride``), escaped so that it can never
    /// read as a processed key (see ``CacheKey``).
    /// Kept with the request: reading it builds nothing.
    public var originalKey: CacheKey { storage.keys.original }

    /// Key of the final image: the original key, then the thumbnail and every processor's
    /// identifier, each length-prefixed after an unambiguous separator (see ``CacheKey``).
    /// Kept with the request: reading it builds nothing.
    public var processedKey: CacheKey { storage.keys.processed }

    /// A request's two cache keys, built together.
    private struct CacheKeys: Sendable {
        var original: CacheKey
        var processed: CacheKey

        static let empty = CacheKeys(original: CacheKey(""), processed: CacheKey(""))

        private init(original: CacheKey, processed: CacheKey) {
            self.original = original
            self.processed = processed
        }

        init(_ request: Storage) {
            original = CacheKey.original(request.cacheKeyOverride ?? request.url.absoluteString)
            var key = original
            var isFirst = true
            if let maximumPixelSize = request.maximumPixelSize {
                key.appendStep(ThumbnailProcessor(maximumPixelSize: maximumPixelSize).identifier, isFirst: true)
                isFirst = false
            }
            for processor in request.processors {
                key.appendStep(processor.identifier, isFirst: isFirst)
                isFirst = false
            }
            if request.colorProfileHandling == .keep {
                key.appendStep("colorProfile=keep", isFirst: isFirst)
                isFirst = false
            }
            if let frames = request.maximumAnimationFrames {
                key.appendStep("frames=\(frames)", isFirst: isFirst)
                isFirst = false
            }
            if request.prefersEmbeddedThumbnail {
                key.appendStep("embeddedThumbnail", isFirst: isFirst)
                isFirst = false
            }
            if request.readsMetadata {
                key.appendStep("metadata", isFirst: isFirst)
            }
            processed = key
        }
    }

    /// Whether any transformation applies after decoding.
    public var isProcessed: Bool { maximumPixelSize != nil || !processors.isEmpty }

    /// The thumbnail's longer side, ``maximumPixelSize``: the one way to ask for a thumbnail. The
    /// image is decoded for it (shrink-on-load).
    var thumbnailSize: Int? { maximumPixelSize }

    /// The processors that run after the thumbnail (``thumbnailSize``) is made: all of them.
    var processorsAfterThumbnail: ArraySlice<any ImageProcessing> { processors[...] }
}

extension ImageRequest {
    /// Which caches a request reads and writes, and whether it may go to the network.
    public struct CachePolicy: Sendable, Hashable {
        /// Read the memory cache.
        public var readsMemory: Bool
        /// Store the result in the memory cache.
        public var writesMemory: Bool
        /// Read the disk cache (and any extra cache layers).
        public var readsDisk: Bool
        /// Store the downloaded bytes (and processed variants, when asked) on disk.
        public var writesDisk: Bool
        /// Go to the network when the caches miss.
        public var loadsFromNetwork: Bool

        /// A cache policy reading and writing what each flag says.
        public init(
            readsMemory: Bool = true, writesMemory: Bool = true, readsDisk: Bool = true,
            writesDisk: Bool = true, loadsFromNetwork: Bool = true
        ) {
            self.readsMemory = readsMemory
            self.writesMemory = writesMemory
            self.readsDisk = readsDisk
            self.writesDisk = writesDisk
            self.loadsFromNetwork = loadsFromNetwork
        }

        /// Read and write every cache; load when they miss. The default.
        public static let useCache = CachePolicy()
        /// Skip the caches on the way in, download anew, and store the fresh result.
        public static let reloadIgnoringCache = CachePolicy(readsMemory: false, readsDisk: false)
        /// Offline: answer from the caches or fail with ``ImagePipeline/Error/notCached(_:)``.
        public static let returnCacheDataDontLoad = CachePolicy(loadsFromNetwork: false)
    }
}
