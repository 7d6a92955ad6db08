
extension ImagePipeline {
    /// The pipeline used when none is given: by ImagoUI's views and loaders, by
    /// ``ImagePipeline/loadImage(with:callbackQueue:progress:completion:)`` callers who keep no pipeline of their own. Made on
    /// first use with every default (a memory cache, no disk cache).
    ///
    /// Set it once at launch, before any image loads, to configure the caches:
    ///
    /// ```swift
    /// ImagePipeline.shared = ImagePipeline(configuration: .init(
    ///     diskCache: try DiskCache(directory: DiskCache.defaultDirectory())))
    /// ```
    ///
    /// Reading and setting are safe from any thread or actor (one lock, no actor hop); a load
    /// already started keeps the pipeline it started on.
    public static var shared: ImagePipeline {
        get {
            sharedStorage.withLock { stored in
                if let stored { return stored }
                let made = ImagePipeline()
                stored = made
                return made
            }
        }
        set { sharedStorage.withLock { $0 = newValue } }
    }

    /// `nil` until ``shared`` is first read or set.
    private static let sharedStorage = Locked<ImagePipeline?>(nil)
}
