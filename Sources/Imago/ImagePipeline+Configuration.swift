import Foundation
import Logging

extension ImagePipeline {
    /// Everything a pipeline is made of. Each field has a default suited to an app that shows
    /// images from the web; change what you need and pass it to ``ImagePipeline/init(configuration:)``.
    public struct Configuration: Sendable {
        /// Downloads the bytes. Default: `HTTPClientDataLoader` on Linux (AsyncHTTPClient is about
        /// seven times faster there than URLSession), `URLSessionDataLoader` on Apple platforms.
        public var dataLoader: any DataLoading
        /// Turns bytes into images. Default: ``ImageDecoder``, which sniffs the format and uses
        /// libjpeg-turbo, libpng, its own GIF decoder and libwebp on Linux, ImageIO on Apple.
        public var decoder: any ImageDecoding
        /// Ceilings checked before decoding. Default: ``DecodingLimits/init()`` (100 megapixels…).
        public var decodingLimits: DecodingLimits
        /// Decoded images, for instant hits. Default: a ``MemoryCache`` with its default limits;
        /// `nil` turns the memory cache off.
        public var memoryCache: MemoryCache<CacheKey, ImageContainer>?
        /// Downloaded bytes, across launches. Default: `nil`, no disk cache: pass a ``DiskCache``
        /// (for example `try DiskCache(directory: DiskCache.defaultDirectory())`) to keep them.
        public var diskCache: DiskCache?
        /// Requests at or above this priority are pinned in the memory cache, where LRU never
        /// evicts them. Default: `.veryHigh`; `nil` pins nothing.
        public var pinnedPriority: ImageRequest.Priority?
        /// Where the pipeline logs. Default: a logger labelled `imago` that discards everything;
        /// Imago never bootstraps the logging system.
        public var logger: Logger

        /// A configuration with every default, and the data loader given.
        public init(
            dataLoader: any DataLoading = ImagePipeline.Configuration.makeDefaultDataLoader(),
            decoder: any ImageDecoding = ImageDecoder(),
            decodingLimits: DecodingLimits = DecodingLimits(),
            memoryCache: MemoryCache<CacheKey, ImageContainer>? = MemoryCache(),
            diskCache: DiskCache? = nil,
            pinnedPriority: ImageRequest.Priority? = .veryHigh,
            logger: Logger = Logger(label: "imago", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.dataLoader = dataLoader
            self.decoder = decoder
            self.decodingLimits = decodingLimits
            self.memoryCache = memoryCache
            self.diskCache = diskCache
            self.pinnedPriority = pinnedPriority
            self.logger = logger
        }

        /// The platform's default loader: `HTTPClientDataLoader` on Linux, `URLSessionDataLoader`
        /// on Apple platforms.
        public static func makeDefaultDataLoader(
            configuration: DataLoaderConfiguration = DataLoaderConfiguration()
        ) -> any DataLoading {
            #if canImport(AsyncHTTPClient)
            HTTPClientDataLoader(configuration: configuration)
            #else
            URLSessionDataLoader(configuration: configuration)
            #endif
        }
    }
}
