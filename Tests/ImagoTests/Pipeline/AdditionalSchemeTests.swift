import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

/// ``ImagePipeline/Configuration/additionalSchemes``: a scheme the configured loader serves goes
/// through the pipeline like http does (the image proxy's `local:` files); others stay refused
/// before any I/O.
@Suite struct AdditionalSchemeTests {
    /// Serves `memo:` URLs from a fixed PNG.
    final class MemoLoader: DataLoading {
        let png: Data
        init(png: Data) { self.png = png }

        func loadData(
            for request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
        ) async throws(ImagePipeline.Error) -> DataLoader.Response {
            DataLoader.Response(data: png, statusCode: 200, headers: [:])
        }
    }

    @Test func aSchemeTheLoaderServesIsLoaded() async throws {
        var configuration = ImagePipeline.Configuration(dataLoader: MemoLoader(png: try Fixtures.png(width: 8, height: 6)), memoryCache: nil)
        configuration.additionalSchemes = ["memo"]
        let pipeline = ImagePipeline(configuration: configuration)
        let response = try await pipeline.image(for: ImageRequest(url: try #require(URL(string: "memo:///a.png"))))
        let bitmap = try response.container.bitmap()
        #expect(bitmap.width == 8 && bitmap.height == 6)
        let other = try #require(URL(string: "gopher://x/y"))
        await #expect(throws: ImagePipeline.Error.unsupportedScheme(other)) { try await pipeline.image(for: ImageRequest(url: other)) }
    }
}
