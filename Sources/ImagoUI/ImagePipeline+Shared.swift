import Imago

extension ImagePipeline {
    /// The pipeline ImagoUI's views and loaders use when not given one: every default (a memory
    /// cache, no disk cache). Replace it once at launch, before any image loads, to configure it:
    ///
    /// ```swift
    /// ImagePipeline.shared = ImagePipeline(configuration: .init(
    ///     diskCache: try DiskCache(directory: DiskCache.defaultDirectory())))
    /// ```
    @MainActor public static var shared = ImagePipeline()
}
