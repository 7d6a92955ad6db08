// Stand-ins for the names README and DocC snippets take as given, so each snippet type-checks as
// written. A snippet's own declarations shadow these. Only type-checked, never run.
import Foundation
import Imago

/// The image a snippet loads.
let url = URL(string: "http://127.0.0.1:8080/photo.jpg")!
/// The next screen's images, for prefetching.
let upcoming: [URL] = [url]
/// A folder of images shipped with an app.
let bundledImagesURL = URL(fileURLWithPath: "/tmp/bundled-images")
/// A pipeline a snippet uses without making its own.
let pipeline = ImagePipeline()
/// A configuration a snippet changes without making its own.
nonisolated(unsafe) var configuration = ImagePipeline.Configuration()

/// Where an authorization token comes from.
actor TokenStore {
    func current() async throws -> String { "token" }
}
let tokens = TokenStore()

/// Puts an image on screen.
func show(_ image: PlatformImage) {}

/// A drawing rasterized by some other library, within the decoder's limits.
func rasterize(_ data: Data, limits: DecodingLimits) throws(ImagePipeline.Error) -> Bitmap {
    Bitmap(width: 1, height: 1)
}

/// A response a snippet inspects without loading it (the snippets are never run).
var response: ImageResponse { fatalError("snippets are only type-checked") }
