import Foundation

/// One encoded response body with its content type and strong ETag.
struct EncodedImage: Sendable {
    var data: Data
    var contentType: String
    var etag: String
    var width: Int
    var height: Int
}
