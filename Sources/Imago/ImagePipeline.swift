import Foundation

/// Loads images: memory cache, then disk cache, then the network, with one download and one decode
/// for every group of identical requests.
public final class ImagePipeline: Sendable {
}
