import Foundation
import Imago

/// Serves files from memory by URL path: the pipeline's own path without a network.
struct MemoryLoader: DataLoading {
    var files: [String: Data]

    func loadData(
        for request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        guard let data = files[request.url.path] else { throw .httpStatus(request.url, statusCode: 404) }
        return DataLoader.Response(data: data, statusCode: 200, headers: ["Content-Type": "image/jpeg"])
    }
}
