import Foundation
import Imago

extension ImagePipeline {
    /// The original bytes the caches hold for `request`, or `nil`: ``ImagePipeline/data(for:)``
    /// with `.returnCacheDataDontLoad`, the public way to read the disk cache without the network.
    func cachedOriginal(for request: ImageRequest) async -> Data? {
        var request = request
        request.cachePolicy = .returnCacheDataDontLoad
        return try? await data(for: request).data
    }
}
