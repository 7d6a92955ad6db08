import Foundation

extension ImagePipeline {
    /// The pipeline's caches, addressed by request or URL: the one way to read and write the
    /// memory cache. `pipeline.cache[request]` (or `pipeline.cache[url]`) is the image kept in
    /// memory, setting it stores or removes one; `pipeline.cache.remove(request)` forgets an image
    /// everywhere. Original bytes on disk are read with ``ImagePipeline/data(for:)`` and
    /// ``ImageRequest/CachePolicy/returnCacheDataDontLoad``.
    public var cache: Cache { Cache(pipeline: self) }

    /// A pipeline's memory and disk caches, addressed as the pipeline addresses them (by the
    /// request's ``ImageRequest/processedKey`` in memory, its ``ImageRequest/originalKey`` and
    /// processed key on disk). See ``ImagePipeline/cache``.
    public struct Cache: Sendable {
        let pipeline: ImagePipeline

        /// The decoded image kept in memory for `request`, or `nil`: a synchronous read, under one
        /// lock, that ``ImagePipeline/image(for:progress:)`` would answer from. Setting an
        /// image stores it there, so the next load of `request` is a memory hit; setting `nil`
        /// removes it.
        public subscript(request: ImageRequest) -> ImageContainer? {
            get { pipeline.cachedImage(for: request) }
            nonmutating set {
                guard let memory = pipeline.memoryCache else { return }
                if let newValue {
                    memory.store(newValue, forKey: request.processedKey, cost: newValue.cost)
                } else {
                    memory.removeValue(forKey: request.processedKey)
                }
            }
        }

        /// The image kept in memory for `ImageRequest(url: url)`; see ``subscript(_:)-(ImageRequest)``.
        public subscript(url: URL) -> ImageContainer? {
            get { self[ImageRequest(url: url)] }
            nonmutating set { self[ImageRequest(url: url)] = newValue }
        }

        /// Forgets `request`'s image: the decoded image in memory, the decoded originals of its URL,
        /// and on disk its processed variant and the original bytes (which every other variant of
        /// the URL is made from).
        public func remove(_ request: ImageRequest) {
            pipeline.memoryCache?.removeValue(forKey: request.processedKey)
            pipeline.decodedOriginals.remove(original: request.originalKey)
            pipeline.diskWriter.removeEntries(for: request)
        }

        /// Empties the memory cache, the tier of decoded originals and the disk cache.
        public func removeAll() {
            pipeline.memoryCache?.removeAll()
            pipeline.decodedOriginals.removeAll()
            pipeline.diskWriter.removeAll()
        }
    }
}
